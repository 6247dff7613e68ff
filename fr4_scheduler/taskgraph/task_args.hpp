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

// Any trivially copyable struct of at most task_arg_bytes bytes, by value.
//   TaskArgs a = TaskArgs::of(MyArgs{3, ptr});  …  MyArgs m = a.as<MyArgs>();
struct TaskArgs {
  alignas(16) unsigned char bytes[task_arg_bytes];

  template <class A>
  static TaskArgs of(const A& value) {
    static_assert(std::is_trivially_copyable<A>::value, "task arguments must be trivially copyable");
    static_assert(sizeof(A) <= task_arg_bytes, "task arguments must fit in task_arg_bytes");
    static_assert(alignof(A) <= 16, "task arguments must not need more than 16-byte alignment");
    TaskArgs out{};
    std::memcpy(out.bytes, &value, sizeof(A));
    return out;
  }

  template <class A>
  TILEDQR_HOST_DEVICE A as() const {
    static_assert(sizeof(A) <= task_arg_bytes, "task arguments must fit in task_arg_bytes");
    A value;
    memcpy(&value, bytes, sizeof(A));
    return value;
  }
};

// The per-run block: any trivially copyable struct of at most
// run_param_bytes bytes, passed to every task of one run.
struct RunParams {
  alignas(16) unsigned char bytes[run_param_bytes];

  template <class P>
  static RunParams of(const P& value) {
    static_assert(std::is_trivially_copyable<P>::value, "run parameters must be trivially copyable");
    static_assert(sizeof(P) <= run_param_bytes, "run parameters must fit in run_param_bytes");
    static_assert(alignof(P) <= 16, "run parameters must not need more than 16-byte alignment");
    RunParams out{};
    std::memcpy(out.bytes, &value, sizeof(P));
    return out;
  }

  template <class P>
  TILEDQR_HOST_DEVICE P as() const {
    static_assert(sizeof(P) <= run_param_bytes, "run parameters must fit in run_param_bytes");
    P value;
    memcpy(&value, bytes, sizeof(P));
    return value;
  }
};

}  // namespace tiledqr::taskgraph
