// The two plain-data blocks a task kind sees (docs/design.md §9): its own argument
// block, stored per task like a kernel node's parameters, and the run
// parameters, one block shared by every task of one run (pointers that
// change from run to run, like the data of a re-launched CUDA graph).
#pragma once

#include <cstring>
#include <type_traits>

#include "host_device.hpp"

namespace tiledqr::taskgraph {

constexpr int task_arg_bytes = 48;
constexpr int run_param_bytes = 256;

// Any trivially copyable struct of at most Bytes bytes, by value.
template <int Bytes>
struct ByteBlock {
  alignas(16) unsigned char bytes[Bytes];

  template <class A>
  static ByteBlock of(const A& value) {
    static_assert(std::is_trivially_copyable<A>::value, "task arguments and run parameters must be trivially copyable");
    static_assert(sizeof(A) <= Bytes, "task arguments must fit in task_arg_bytes, run parameters in run_param_bytes");
    static_assert(alignof(A) <= 16, "task arguments and run parameters must not need more than 16-byte alignment");
    ByteBlock out{};
    std::memcpy(out.bytes, &value, sizeof(A));
    return out;
  }

  template <class A>
  TILEDQR_HOST_DEVICE A as() const {
    static_assert(sizeof(A) <= Bytes, "task arguments must fit in task_arg_bytes, run parameters in run_param_bytes");
    A value;
    memcpy(&value, bytes, sizeof(A));
    return value;
  }
};

// A task's own argument block:
//   TaskArgs a = TaskArgs::of(MyArgs{3, ptr});  …  MyArgs m = a.as<MyArgs>();
using TaskArgs = ByteBlock<task_arg_bytes>;
// The per-run block, passed to every task of one run.
using RunParams = ByteBlock<run_param_bytes>;

}  // namespace tiledqr::taskgraph
