// DeviceGraph (device_graph.hpp): the device side of an instantiated graph
// — upload, cooperative launch, resets between runs and the host watchdog.
// The kernel itself is persistent_executor.cuh's; the layout it reads is
// built on the host (device_layout.cpp).
#include <algorithm>
#include <chrono>
#include <cstring>
#include <iterator>
#include <sstream>
#include <thread>

#include "device_graph.hpp"
#include "errors.hpp"
#include "gpu/cuda_check.hpp"

namespace tiledqr::taskgraph {

const char* status_code_name(Status::Code code) {
  switch (code) {
    case Status::Code::ok: return "ok";
    case Status::Code::stalled: return "stalled";
    case Status::Code::device_error: return "device error";
    case Status::Code::refused: return "refused";
    case Status::Code::invalid: return "invalid";
  }
  return "unknown";
}

int gpu_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

namespace {

using gpu::check;

uint32_t read_host_word(const uint32_t& word) { return *static_cast<const volatile uint32_t*>(&word); }
void write_host_word(uint32_t& word, uint32_t value) { *static_cast<volatile uint32_t*>(&word) = value; }

// Options validated, the scratch rounded up to 16 bytes.
ExecOptions checked_options(ExecOptions options) {
  if (options.warps_per_block < 1 || options.warps_per_block > 32)
    throw InputError("warps_per_block must be in 1..32, got " + std::to_string(options.warps_per_block));
  if (options.scratch_bytes_per_warp < 0) throw InputError("scratch_bytes_per_warp must be >= 0");
  if (!(options.stall_timeout_seconds > 0)) throw InputError("stall_timeout_seconds must be > 0");
  options.scratch_bytes_per_warp = (options.scratch_bytes_per_warp + 15) / 16 * 16;
  return options;
}

// Page-locked host memory for one chunk of the upload (cudaMemcpy from it
// runs at the bus's speed), freed on every path out.
template <class T>
class PinnedChunk {
 public:
  PinnedChunk(int64_t count, const char* what) {
    if (count > 0) check(cudaHostAlloc(reinterpret_cast<void**>(&data_), size_t(count) * sizeof(T), cudaHostAllocDefault), what);
  }
  ~PinnedChunk() {
    if (data_ != nullptr) cudaFreeHost(data_);
  }
  PinnedChunk(const PinnedChunk&) = delete;
  PinnedChunk& operator=(const PinnedChunk&) = delete;
  T* get() const { return data_; }

 private:
  T* data_ = nullptr;
};

template <class T>
void upload(T* device, const T* host, int64_t count, const char* what) {
  if (count > 0) check(cudaMemcpy(device, host, size_t(count) * sizeof(T), cudaMemcpyHostToDevice), what);
}

}  // namespace

LaunchShape DeviceGraph::plan_launch(const ExecOptions& given, const void* kernel, std::string* refusal) {
  const ExecOptions options = checked_options(given);
  if (gpu_count() == 0) throw GpuError("no CUDA-capable GPU is available");
  std::string why;
  LaunchShape shape;
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  shape.device_name = prop.name;
  shape.multiprocessors = prop.multiProcessorCount;
  shape.warps_per_block = options.warps_per_block;
  shape.shared_bytes = size_t(options.scratch_bytes_per_warp) * size_t(options.warps_per_block);
  const int threads = 32 * options.warps_per_block;

  int cooperative = 0;
  check(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device), "cudaDeviceGetAttribute");
  if (shape.shared_bytes > 48 * 1024) {
    const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(shape.shared_bytes));
    if (e != cudaSuccess) {
      cudaGetLastError();
      why = "the executor cannot use " + std::to_string(shape.shared_bytes) +
            " bytes of shared memory per block: " + gpu::error_text(e);
    }
  }
  int fit = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel, threads, shape.shared_bytes),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  if (!cooperative) {
    why = std::string(prop.name) + " does not support cooperative launches, so the "
          "persistent executor's blocks cannot be guaranteed to be co-resident";
  } else if (why.empty() && fit == 0) {
    why = "no block of the executor (" + std::to_string(threads) + " threads, " +
          std::to_string(shape.shared_bytes) + " bytes of shared memory) fits on one multiprocessor";
  } else if (why.empty() && options.blocks_per_sm > fit) {
    why = "asked for " + std::to_string(options.blocks_per_sm) + " blocks per multiprocessor, but only " +
          std::to_string(fit) + " can be co-resident";
  }
  shape.blocks_per_sm = options.blocks_per_sm > 0 ? std::min(options.blocks_per_sm, std::max(fit, 1))
                                                  : std::max(fit, 1);
  shape.blocks = shape.blocks_per_sm * shape.multiprocessors;
  if (options.max_blocks > 0) shape.blocks = std::min(shape.blocks, options.max_blocks);
  shape.workers = options.workers_are_blocks ? shape.blocks : shape.blocks * shape.warps_per_block;
  if (refusal != nullptr) *refusal = why;
  return shape;
}

DeviceGraph::DeviceGraph(const CompiledGraph& graph, const ExecOptions& options, const void* kernel)
    : DeviceGraph(layout_stream(make_device_layout(graph), graph.has_block_tasks()), options, kernel) {}

DeviceGraph::DeviceGraph(const LayoutStream& graph, const ExecOptions& options, const void* kernel)
    : kernel_(kernel), options_(checked_options(options)) {
  const ChunkChecker counts(graph);  // the counts are sane, before anything is allocated
  if (graph.has_block_tasks && options_.test_absent_worker >= 0)
    throw InputError("ExecOptions::test_absent_worker needs a graph without block kinds");
  shape_ = plan_launch(options_, kernel_, &refusal_);
  num_tasks_ = graph.num_tasks;
  num_roots_ = static_cast<int32_t>(graph.roots.size());
  has_block_tasks_ = graph.has_block_tasks;
  num_classes_ = graph.num_classes;
  express_tasks_ = graph.express_tasks;
  int64_t express_slots = 0;
  for (const int64_t count : express_tasks_) express_slots += count;
  const DeviceGraphArrays sizes = device_graph_arrays(num_tasks_, graph.num_edges, num_roots_, shape_.workers,
                                                      options_.trace, express_slots);
  gpu::ensure_device_memory(double(sizes.bytes()), "the task graph (" + std::to_string(num_tasks_) + " tasks, " +
                                                       std::to_string(graph.num_edges) + " edges)");
  try {
    check(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming), "cudaEventCreate");
    check(cudaHostAlloc(reinterpret_cast<void**>(&watch_host_), sizeof(Watch), cudaHostAllocMapped),
          "cudaHostAlloc (watchdog flags)");
    std::memset(watch_host_, 0, sizeof(Watch));
    check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&watch_device_), watch_host_, 0),
          "cudaHostGetDevicePointer");
    headers_ = gpu::device_allocate<TaskHeader>(size_t(sizes.headers), "the task headers");
    succs_ = gpu::device_allocate<uint32_t>(size_t(sizes.succs), "the successor lists");
    roots_ = gpu::device_allocate<int32_t>(size_t(sizes.roots), "the roots");
    remaining_ = gpu::device_allocate<int32_t>(size_t(sizes.remaining), "the counters");
    initial_remaining_ = gpu::device_allocate<int32_t>(size_t(sizes.initial_remaining), "the initial counters");
    args_ = gpu::device_allocate<TaskArgs>(size_t(sizes.args), "the task arguments");
    slot_count_ = sizes.slots;
    slots_ = gpu::device_allocate<unsigned long long>(size_t(sizes.slots), "the ready slots");
    counters_ = gpu::device_allocate<RunCounters>(size_t(sizes.run_counters), "the run counters");
    trace_ = gpu::device_allocate<TraceEvent>(size_t(sizes.trace), "the trace");
    if (num_tasks_ > 0) {
      upload(roots_, graph.roots.data(), num_roots_, "upload of roots");
      upload_chunks(graph);
      check(cudaMemcpy(initial_remaining_, remaining_, size_t(num_tasks_) * sizeof(int32_t), cudaMemcpyDeviceToDevice),
            "copy of the initial counters");
      check(cudaMemset(slots_, 0, size_t(slot_count_) * sizeof(unsigned long long)), "cudaMemset (slots)");
      if (trace_ != nullptr)
        check(cudaMemset(trace_, 0, size_t(num_tasks_) * sizeof(TraceEvent)), "cudaMemset (trace)");
    }
  } catch (...) {
    release();
    throw;
  }
}

// The stream's chunks through page-locked buffers of its chunk capacity;
// each task's counter starts at its predecessor count.
void DeviceGraph::upload_chunks(const LayoutStream& graph) {
  const PinnedChunk<TaskHeader> headers(graph.chunk_tasks, "cudaHostAlloc (chunk of task headers)");
  const PinnedChunk<TaskArgs> args(graph.chunk_tasks, "cudaHostAlloc (chunk of task arguments)");
  const PinnedChunk<uint32_t> succs(graph.chunk_edges, "cudaHostAlloc (chunk of successors)");
  const PinnedChunk<int32_t> counters(graph.chunk_tasks, "cudaHostAlloc (chunk of counters)");
  LayoutChunk buffers;
  buffers.headers = headers.get();
  buffers.args = args.get();
  buffers.succs = succs.get();
  consume_stream(graph, buffers, [&](const LayoutChunk& c) {
    for (int32_t k = 0; k < c.task_count; ++k) counters.get()[k] = c.headers[k].pred_count;
    upload(headers_ + c.first_task, c.headers, c.task_count, "upload of task headers");
    upload(args_ + c.first_task, c.args, c.task_count, "upload of task arguments");
    upload(remaining_ + c.first_task, counters.get(), c.task_count, "upload of counters");
    upload(succs_ + c.first_edge, c.succs, c.edge_count, "upload of successors");
  });
}

DeviceGraph::~DeviceGraph() {
  if (running_ && !wedged_) cudaEventSynchronize(done_);
  release();
}

void DeviceGraph::release() noexcept {
  if (wedged_) return;  // the kernel may still use these buffers: leak them rather than hang
  cudaFree(headers_);
  cudaFree(succs_);
  cudaFree(roots_);
  cudaFree(remaining_);
  cudaFree(initial_remaining_);
  cudaFree(slots_);
  cudaFree(counters_);
  cudaFree(args_);
  cudaFree(trace_);
  if (watch_host_ != nullptr) cudaFreeHost(watch_host_);
  if (done_ != nullptr) cudaEventDestroy(done_);
  headers_ = nullptr;
  succs_ = nullptr;
  roots_ = nullptr;
  remaining_ = nullptr;
  initial_remaining_ = nullptr;
  slots_ = nullptr;
  counters_ = nullptr;
  args_ = nullptr;
  trace_ = nullptr;
  watch_host_ = nullptr;
  done_ = nullptr;
}

Status DeviceGraph::launch(const RunParams& params, cudaStream_t stream) {
  using Code = Status::Code;
  if (wedged_) return Status::failure(Code::refused, "an earlier run did not stop after its abort");
  if (running_) return Status::failure(Code::invalid, "launch() while a run is in flight: call wait() first");
  if (!refusal_.empty()) return Status::failure(Code::refused, refusal_);
  if (num_tasks_ == 0) {
    running_ = true;
    return Status{};
  }
  const auto failed = [](cudaError_t e, const char* what) {
    return Status::failure(e == cudaErrorCooperativeLaunchTooLarge ? Code::refused : Code::device_error,
                           std::string(what) + " failed: " + gpu::error_text(e));
  };
  cudaError_t e = cudaSuccess;
  if (needs_full_reset_) {
    e = cudaMemcpyAsync(remaining_, initial_remaining_, size_t(num_tasks_) * sizeof(int32_t),
                        cudaMemcpyDeviceToDevice, stream);
    if (e != cudaSuccess) return failed(e, "counter reset");
    needs_full_reset_ = false;
  }
  if (!pending_args_.empty()) {
    // One copy per run of consecutive tasks, from staged_args_, which stays
    // untouched until the next launch (this run is waited for before it).
    staged_args_.clear();
    for (const auto& entry : pending_args_) staged_args_.push_back(entry.second);
    size_t first = 0;
    auto run_start = pending_args_.begin();
    for (auto it = pending_args_.begin(); it != pending_args_.end();) {
      const auto next = std::next(it);
      if (next == pending_args_.end() || next->first != it->first + 1) {
        const size_t count = size_t(it->first - run_start->first) + 1;
        e = cudaMemcpyAsync(args_ + run_start->first, staged_args_.data() + first, count * sizeof(TaskArgs),
                            cudaMemcpyHostToDevice, stream);
        if (e != cudaSuccess) return failed(e, "argument upload");
        first += count;
        run_start = next;
      }
      it = next;
    }
    pending_args_.clear();
  }
  if (++epoch_ == 0) {  // 2^32 runs: old slots could look current again
    e = cudaMemsetAsync(slots_, 0, size_t(slot_count_) * sizeof(unsigned long long), stream);
    if (e != cudaSuccess) return failed(e, "slot reset");
    epoch_ = 1;
  }
  e = cudaMemsetAsync(counters_, 0, sizeof(RunCounters), stream);
  if (e != cudaSuccess) return failed(e, "counter reset");
  write_host_word(watch_host_->abort, 0);
  write_host_word(watch_host_->progress, 0);

  ExecutorParams p;
  p.view.num_tasks = num_tasks_;
  p.view.num_roots = num_roots_;
  p.view.num_workers = shape_.workers;
  p.view.epoch = epoch_;
  p.view.headers = headers_;
  p.view.succs = succs_;
  p.view.roots = roots_;
  p.view.remaining = remaining_;
  p.view.slots = slots_;
  p.view.counters = counters_;
  p.view.watch = watch_device_;
  p.view.slot_count = slot_count_;
  p.view.num_classes = num_classes_;
  unsigned long long* express = slots_ + (int64_t(num_tasks_) + shape_.workers);  // the rings follow the ticket ring
  for (int32_t c = 0; c + 1 < num_classes_; ++c) {
    p.view.express_slots[c] = express;
    express += express_tasks_[size_t(c)];
  }
  p.args = args_;
  p.trace = trace_;
  p.warps_per_block = shape_.warps_per_block;
  p.scratch_bytes_per_warp = options_.scratch_bytes_per_warp;
  p.has_block_tasks = has_block_tasks_;
  p.test_absent_worker = options_.test_absent_worker;
  p.run_params = params;
  void* kernel_args[] = {&p};
  e = cudaLaunchCooperativeKernel(kernel_, dim3(unsigned(shape_.blocks)), dim3(unsigned(32 * shape_.warps_per_block)),
                                  kernel_args, shape_.shared_bytes, stream);
  if (e != cudaSuccess) {
    cudaGetLastError();
    needs_full_reset_ = true;
    return failed(e, "cooperative launch of the persistent executor");
  }
  e = cudaEventRecord(done_, stream);
  if (e != cudaSuccess) return failed(e, "cudaEventRecord");
  running_ = true;
  return Status{};
}

Status DeviceGraph::wait() {
  using Code = Status::Code;
  using Clock = std::chrono::steady_clock;
  if (!running_) return Status::failure(Code::invalid, "wait() without a launch()");
  running_ = false;
  if (num_tasks_ == 0) return Status{};

  const auto seconds_since = [](Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  };
  // After an abort the kernel's wait loops notice within ~host_poll_ns;
  // only a task that never returns keeps it running past this grace.
  const double stop_grace = std::max(5.0, options_.stall_timeout_seconds);
  uint32_t last_progress = read_host_word(watch_host_->progress);
  Clock::time_point last_change = Clock::now(), aborted_at{};
  bool aborted = false;
  for (long polls = 0;; ++polls) {
    const cudaError_t e = cudaEventQuery(done_);
    if (e == cudaSuccess) break;
    if (e != cudaErrorNotReady) {
      needs_full_reset_ = true;
      return Status::failure(Code::device_error, "the persistent executor failed: " + gpu::error_text(e));
    }
    const uint32_t progress = read_host_word(watch_host_->progress);
    if (progress != last_progress) {
      last_progress = progress;
      last_change = Clock::now();
    } else if (!aborted && seconds_since(last_change) > options_.stall_timeout_seconds) {
      write_host_word(watch_host_->abort, 1);
      aborted = true;
      aborted_at = Clock::now();
    }
    if (aborted && seconds_since(aborted_at) > stop_grace) {
      wedged_ = true;
      return Status::failure(Code::stalled,
                             "no task finished for " + std::to_string(options_.stall_timeout_seconds) +
                                 " s and the run did not stop after the abort (a task never returns); "
                                 "the GPU is still running it");
    }
    if (polls < 2000) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  if (!aborted) return Status{};
  needs_full_reset_ = true;
  RunCounters counters{};
  const cudaError_t e = cudaMemcpy(&counters, counters_, sizeof(RunCounters), cudaMemcpyDeviceToHost);
  std::ostringstream text;
  text << "stalled: no task finished for " << options_.stall_timeout_seconds << " s, so the watchdog ended the run";
  if (e == cudaSuccess) text << "; " << counters.completed.value << " of " << num_tasks_ << " tasks had finished";
  return Status::failure(Code::stalled, text.str());
}

void DeviceGraph::set_args(int32_t task, const TaskArgs& args) {
  if (task < 0 || task >= num_tasks_)
    throw InputError("set_args: task " + std::to_string(task) + " is not in the graph");
  pending_args_[task] = args;
}

std::vector<TraceEvent> DeviceGraph::trace() const {
  std::vector<TraceEvent> out;
  if (trace_ == nullptr) return out;
  out.resize(size_t(num_tasks_));
  check(cudaMemcpy(out.data(), trace_, out.size() * sizeof(TraceEvent), cudaMemcpyDeviceToHost),
             "trace download");
  return out;
}

void DeviceGraph::add_phantom_predecessor_for_testing(int32_t task) {
  int32_t initial = 0;
  if (task >= 0 && task < num_tasks_)
    check(cudaMemcpy(&initial, initial_remaining_ + task, sizeof(int32_t), cudaMemcpyDeviceToHost), "counter download");
  if (initial < 2) throw InputError("add_phantom_predecessor_for_testing needs a task with two or more predecessors");
  if (needs_full_reset_) {
    check(cudaMemcpy(remaining_, initial_remaining_, size_t(num_tasks_) * sizeof(int32_t), cudaMemcpyDeviceToDevice),
          "counter reset");
    needs_full_reset_ = false;
  }
  const int32_t inflated = initial + 1;
  check(cudaMemcpy(remaining_ + task, &inflated, sizeof(int32_t), cudaMemcpyHostToDevice), "counter upload");
}

}  // namespace tiledqr::taskgraph

