// Whether this build's GPU code can run on the current device: every .cu of
// the project is compiled for the same architectures (meson option
// cuda-arch), so one probe kernel answers for all of them. Programs call it
// at start-up, so a GPU of another architecture is a clear error there
// rather than "no kernel image is available" from a launch deep inside.
#pragma once

#include <string>

namespace tiledqr::gpu {

struct KernelImageCheck {
  bool ok = false;
  bool no_device = false;  // no CUDA device at all (not an architecture problem)
  std::string message;     // empty when ok
};

// Queries the current device; never throws.
KernelImageCheck check_kernel_image();

// The architectures this build carries code for, e.g. "sm_80 sm_90 compute_90".
const char* built_architectures();

// Throws GpuError with check_kernel_image()'s message unless it is ok.
void require_kernel_image();

// For a program's first line: when a device exists but cannot run this
// build's code, prints "program: <message>" to stderr and returns exit code
// 4 (no usable GPU); otherwise 0 (no device is left to the program to say).
int start_up_architecture_check(const char* program);

}  // namespace tiledqr::gpu
