// The FR4 scheduler's host side: graph building and validation (graph.hpp),
// the device layout, upload, cooperative launch and watchdog
// (device_graph.hpp). The device code is in persistent_executor.cuh.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <ostream>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "device_graph.hpp"
#include "errors.hpp"
#include "graph.hpp"
#include "size_check.hpp"

namespace tiledqr::taskgraph {

// ===========================================================================
// Graph

namespace {

std::string quoted(const std::string& name) { return "'" + name + "'"; }

// Names of tasks on a list, at most `limit` of them, "a -> b -> c".
std::string name_path(const std::vector<int32_t>& tasks, const CompiledGraph& g, size_t limit) {
  std::string out;
  for (size_t k = 0; k < tasks.size() && k < limit; ++k) {
    if (k > 0) out += " -> ";
    out += quoted(g.task_name(tasks[k]));
  }
  if (tasks.size() > limit) out += " -> … (" + std::to_string(tasks.size() - limit) + " more)";
  return out;
}

std::string dot_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

TaskHandle& TaskHandle::name(const std::string& text) {
  if (graph_ == nullptr) throw GraphError("name() on an empty TaskHandle");
  if (id_ < 0 || id_ >= graph_->size()) {
    graph_->note_problem("name " + quoted(text) + " given to task " + std::to_string(id_) +
                         ", which does not exist");
    return *this;
  }
  graph_->names_[id_] = text;
  return *this;
}

void TaskHandle::add_edge_to(const TaskHandle& other) { connect(other, true); }

void TaskHandle::add_edge_from(const TaskHandle& other) { connect(other, false); }

// An edge from this task to `other` (forward) or from `other` to this task;
// a handle of another graph or none is noted as a dangling edge.
void TaskHandle::connect(const TaskHandle& other, bool forward) {
  if (graph_ == nullptr) throw GraphError(std::string(forward ? "precede()" : "succeed()") + " on an empty TaskHandle");
  if (other.graph_ != graph_) {
    graph_->note_problem("dangling edge: " + quoted(graph_->task_name(id_)) + (forward ? " precedes " : " succeeds ") +
                         (other.graph_ == nullptr ? std::string("an empty task handle")
                                                  : "task " + std::to_string(other.id_) + " of another graph"));
    return;
  }
  if (forward) graph_->add_edge(id_, other.id_);
  else graph_->add_edge(other.id_, id_);
}

TaskHandle& TaskHandle::reads(int64_t object) {
  if (graph_ == nullptr) throw GraphError("reads() on an empty TaskHandle");
  graph_->add_access(id_, object, false);
  return *this;
}

TaskHandle& TaskHandle::writes(int64_t object) {
  if (graph_ == nullptr) throw GraphError("writes() on an empty TaskHandle");
  graph_->add_access(id_, object, true);
  return *this;
}

std::string CompiledGraph::task_name(int32_t id) const {
  if (id < 0 || id >= num_tasks()) return "task " + std::to_string(id) + " (not in the graph)";
  const auto named = names.find(id);
  if (named != names.end()) return named->second;
  return kind_names[size_t(kind[size_t(id)])] + "#" + std::to_string(id);
}

bool CompiledGraph::has_block_tasks() const {
  return std::any_of(team.begin(), team.end(), [](Team t) { return t == Team::block; });
}

void Graph::define_kind(int32_t kind, const std::string& name, Team team) {
  if (kind < 0 || kind > 65535)
    throw GraphError("kind id " + std::to_string(kind) + " is outside 0..65535");
  if (size_t(kind) >= kinds_.size()) kinds_.resize(size_t(kind) + 1);
  kinds_[size_t(kind)] = KindInfo{name, team, true};
}

TaskHandle Graph::add_task(int32_t kind, const TaskArgs& args) {
  if (kind < 0 || size_t(kind) >= kinds_.size() || !kinds_[size_t(kind)].defined)
    throw GraphError("task " + std::to_string(size()) + " has kind " + std::to_string(kind) +
                     ", which was never defined (Graph::define_kind)");
  if (size() >= max_tasks) throw GraphError("a graph holds at most " + std::to_string(max_tasks) + " tasks");
  kind_.push_back(kind);
  args_.push_back(args);
  return TaskHandle(this, size() - 1);
}

void Graph::add_edge(int32_t before, int32_t after) { stated_edges_.emplace_back(before, after); }

void Graph::add_access(int32_t task, int64_t object, bool write) {
  accesses_.push_back(Access{task, object, write});
}

std::string Graph::task_name(int32_t id) const {
  if (id < 0 || id >= size()) return "task " + std::to_string(id) + " (not in the graph)";
  const auto named = names_.find(id);
  if (named != names_.end()) return named->second;
  return kinds_[size_t(kind_[size_t(id)])].name + "#" + std::to_string(id);
}

std::vector<std::pair<int32_t, int32_t>> Graph::edges() const {
  std::vector<std::pair<int32_t, int32_t>> out = stated_edges_;

  // Inferred edges: walk the accesses in task order; per object keep the
  // last writer and the readers since.
  std::vector<Access> accesses;
  accesses.reserve(accesses_.size());
  for (const Access& a : accesses_)
    if (a.task >= 0 && a.task < size()) accesses.push_back(a);
  std::stable_sort(accesses.begin(), accesses.end(), [](const Access& x, const Access& y) {
    if (x.task != y.task) return x.task < y.task;
    if (x.object != y.object) return x.object < y.object;
    return x.write > y.write;  // a write first: read+write of one object is a write
  });
  struct ObjectState {
    int32_t last_writer = -1;
    std::vector<int32_t> readers;
  };
  std::unordered_map<int64_t, ObjectState> objects;
  for (size_t k = 0; k < accesses.size(); ++k) {
    const Access& a = accesses[k];
    if (k > 0 && accesses[k - 1].task == a.task && accesses[k - 1].object == a.object) continue;
    ObjectState& s = objects[a.object];
    if (s.last_writer >= 0 && s.last_writer != a.task) out.emplace_back(s.last_writer, a.task);
    if (a.write) {
      for (const int32_t r : s.readers)
        if (r != a.task) out.emplace_back(r, a.task);
      s.readers.clear();
      s.last_writer = a.task;
    } else {
      s.readers.push_back(a.task);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void Graph::dump(std::ostream& out) const {
  out << "digraph fr4_graph {\n";
  for (int32_t t = 0; t < size(); ++t) {
    const KindInfo& k = kinds_[size_t(kind_[size_t(t)])];
    out << "  t" << t << " [label=\"" << dot_escape(task_name(t)) << "\"";
    if (k.team == Team::block) out << ", shape=box";
    out << "];\n";
  }
  for (const auto& e : edges()) {
    if (e.first < 0 || e.first >= size() || e.second < 0 || e.second >= size()) continue;
    out << "  t" << e.first << " -> t" << e.second << ";\n";
  }
  out << "}\n";
}

std::string Graph::dump() const {
  std::ostringstream out;
  dump(out);
  return out.str();
}

CompiledGraph Graph::compile() const {
  const int32_t n = size();
  std::vector<std::string> problems = problems_;
  for (const auto& e : stated_edges_) {
    const bool from_ok = e.first >= 0 && e.first < n, to_ok = e.second >= 0 && e.second < n;
    if (!from_ok || !to_ok)
      problems.push_back("dangling edge: " + quoted(task_name(e.first)) + " -> " +
                         quoted(task_name(e.second)));
  }
  for (const Access& a : accesses_)
    if (a.task < 0 || a.task >= n)
      problems.push_back("access to object " + std::to_string(a.object) + " declared by task " +
                         std::to_string(a.task) + ", which does not exist");
  if (!problems.empty()) {
    std::string text = "graph cannot run: " + problems.front();
    for (size_t k = 1; k < problems.size() && k < 10; ++k) text += "; " + problems[k];
    if (problems.size() > 10) text += "; … (" + std::to_string(problems.size() - 10) + " more)";
    throw GraphError(text);
  }

  CompiledGraph g;
  g.kind = kind_;
  g.args = args_;
  g.names = names_;
  for (const KindInfo& k : kinds_) g.kind_names.push_back(k.name);
  g.team.resize(size_t(n));
  for (int32_t t = 0; t < n; ++t) g.team[size_t(t)] = kinds_[size_t(kind_[size_t(t)])].team;

  const std::vector<std::pair<int32_t, int32_t>> edge_list = edges();
  for (const auto& e : edge_list)
    if (e.first == e.second)
      throw GraphError("graph has a cycle: " + quoted(g.task_name(e.first)) + " -> " +
                       quoted(g.task_name(e.first)));

  // CSR of successors (edge_list is sorted by source) and of predecessors.
  g.succ_offsets.assign(size_t(n) + 1, 0);
  g.pred_count.assign(size_t(n), 0);
  for (const auto& e : edge_list) {
    ++g.succ_offsets[size_t(e.first) + 1];
    ++g.pred_count[size_t(e.second)];
  }
  for (int32_t t = 0; t < n; ++t) g.succ_offsets[size_t(t) + 1] += g.succ_offsets[size_t(t)];
  g.succs.resize(edge_list.size());
  for (size_t k = 0; k < edge_list.size(); ++k) g.succs[k] = edge_list[k].second;

  // Kahn's algorithm: a topological order, or the tasks left on cycles.
  std::vector<int32_t> order;
  order.reserve(size_t(n));
  std::vector<int32_t> waiting = g.pred_count;
  for (int32_t t = 0; t < n; ++t)
    if (waiting[size_t(t)] == 0) order.push_back(t);
  for (size_t head = 0; head < order.size(); ++head) {
    const int32_t t = order[head];
    for (int64_t e = g.succ_offsets[size_t(t)]; e < g.succ_offsets[size_t(t) + 1]; ++e)
      if (--waiting[size_t(g.succs[size_t(e)])] == 0) order.push_back(g.succs[size_t(e)]);
  }
  if (order.size() < size_t(n)) {
    // Every task left has a predecessor that is left too: walking backwards
    // through such predecessors must revisit a task, closing a cycle.
    std::vector<int64_t> pred_offsets(size_t(n) + 1, 0);
    for (const auto& e : edge_list) ++pred_offsets[size_t(e.second) + 1];
    for (int32_t t = 0; t < n; ++t) pred_offsets[size_t(t) + 1] += pred_offsets[size_t(t)];
    std::vector<int32_t> preds(edge_list.size());
    std::vector<int64_t> fill(pred_offsets.begin(), pred_offsets.end() - 1);
    for (const auto& e : edge_list) preds[size_t(fill[size_t(e.second)]++)] = e.first;
    int32_t start = 0;
    while (waiting[size_t(start)] == 0) ++start;
    std::vector<int32_t> step_of(size_t(n), -1);
    std::vector<int32_t> walk;
    int32_t t = start;
    while (step_of[size_t(t)] < 0) {
      step_of[size_t(t)] = static_cast<int32_t>(walk.size());
      walk.push_back(t);
      int32_t next = -1;
      for (int64_t e = pred_offsets[size_t(t)]; e < pred_offsets[size_t(t) + 1]; ++e)
        if (waiting[size_t(preds[size_t(e)])] > 0) {
          next = preds[size_t(e)];
          break;
        }
      t = next;
    }
    std::vector<int32_t> cycle(walk.begin() + step_of[size_t(t)], walk.end());
    std::reverse(cycle.begin(), cycle.end());  // the walk went against the edges
    std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
    cycle.push_back(cycle.front());  // from its first-added task back to it
    throw GraphError("graph has a cycle: " + name_path(cycle, g, 12) + " (" +
                     std::to_string(size_t(n) - order.size()) + " tasks cannot run)");
  }

  // Critical-path priority: tasks on the longest path to a sink.
  g.priority.assign(size_t(n), 1);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int32_t t = *it;
    for (int64_t e = g.succ_offsets[size_t(t)]; e < g.succ_offsets[size_t(t) + 1]; ++e)
      g.priority[size_t(t)] = std::max(g.priority[size_t(t)], g.priority[size_t(g.succs[size_t(e)])] + 1);
  }
  const auto by_priority = [&g](int32_t a, int32_t b) {
    if (g.priority[size_t(a)] != g.priority[size_t(b)]) return g.priority[size_t(a)] > g.priority[size_t(b)];
    return a < b;
  };
  for (int32_t t = 0; t < n; ++t)
    std::sort(g.succs.begin() + g.succ_offsets[size_t(t)], g.succs.begin() + g.succ_offsets[size_t(t) + 1],
              by_priority);
  for (int32_t t = 0; t < n; ++t)
    if (g.pred_count[size_t(t)] == 0) g.roots.push_back(t);
  std::sort(g.roots.begin(), g.roots.end(), by_priority);
  return g;
}

// ===========================================================================
// Device layout

DeviceLayout make_device_layout(const CompiledGraph& graph) {
  const int32_t n = graph.num_tasks();
  if (graph.num_edges() > int64_t(0x7fffffff))
    throw GraphError("graph has " + std::to_string(graph.num_edges()) +
                     " edges; the executor addresses at most 2^31 - 1");
  DeviceLayout out;
  out.headers.resize(size_t(n));
  for (int32_t t = 0; t < n; ++t) {
    TaskHeader& h = out.headers[size_t(t)];
    h.kind = static_cast<uint16_t>(graph.kind[size_t(t)]);
    h.team = static_cast<uint8_t>(graph.team[size_t(t)]);
    h.unused = 0;
    h.pred_count = graph.pred_count[size_t(t)];
    h.succ_begin = static_cast<int32_t>(graph.succ_offsets[size_t(t)]);
    h.succ_count = static_cast<int32_t>(graph.succ_offsets[size_t(t) + 1] - graph.succ_offsets[size_t(t)]);
  }
  out.succs.resize(graph.succs.size());
  for (size_t e = 0; e < graph.succs.size(); ++e) {
    const int32_t s = graph.succs[e];
    out.succs[e] = static_cast<uint32_t>(s) | (graph.pred_count[size_t(s)] == 1 ? single_predecessor_bit : 0u);
  }
  for (TaskHeader& h : out.headers) {
    h.first_succ = h.succ_count > 0 ? out.succs[size_t(h.succ_begin)] : 0u;
    h.unused2 = 0;
  }
  out.roots = graph.roots;
  out.remaining = graph.pred_count;
  return out;
}

// ===========================================================================
// DeviceGraph

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

std::string cuda_text(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw GpuError(std::string(what) + " failed: " + cuda_text(e));
}

template <class T>
T* device_array(size_t count, const char* what) {
  T* p = nullptr;
  if (count == 0) return p;
  const cudaError_t status = cudaMalloc(&p, count * sizeof(T));
  if (status == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // not sticky: clear it, then say how much was asked
    size_t free_bytes = 0, total_bytes = 0;
    check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    throw GpuError(std::string(what) + " needs " + format_bytes(double(count) * double(sizeof(T))) +
                   " of device memory; " + format_bytes(double(free_bytes)) + " of " +
                   format_bytes(double(total_bytes)) + " are free");
  }
  check_cuda(status, what);
  return p;
}

template <class T>
void upload(T* device, const std::vector<T>& host, const char* what) {
  if (host.empty()) return;
  check_cuda(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), what);
}

uint32_t read_host_word(const uint32_t& word) { return *static_cast<const volatile uint32_t*>(&word); }
void write_host_word(uint32_t& word, uint32_t value) { *static_cast<volatile uint32_t*>(&word) = value; }

}  // namespace

DeviceGraph::DeviceGraph(const CompiledGraph& graph, const ExecOptions& options, const void* kernel)
    : kernel_(kernel), options_(options) {
  if (options_.warps_per_block < 1 || options_.warps_per_block > 32)
    throw InputError("warps_per_block must be in 1..32, got " + std::to_string(options_.warps_per_block));
  if (options_.scratch_bytes_per_warp < 0) throw InputError("scratch_bytes_per_warp must be >= 0");
  if (!(options_.stall_timeout_seconds > 0)) throw InputError("stall_timeout_seconds must be > 0");
  options_.scratch_bytes_per_warp = (options_.scratch_bytes_per_warp + 15) / 16 * 16;
  if (gpu_count() == 0) throw GpuError("no CUDA-capable GPU is available");

  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  shape_.device_name = prop.name;
  shape_.multiprocessors = prop.multiProcessorCount;
  shape_.warps_per_block = options_.warps_per_block;
  shape_.shared_bytes = size_t(options_.scratch_bytes_per_warp) * size_t(options_.warps_per_block);
  const int threads = 32 * options_.warps_per_block;

  int cooperative = 0;
  check_cuda(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device),
             "cudaDeviceGetAttribute");
  if (shape_.shared_bytes > 48 * 1024) {
    const cudaError_t e = cudaFuncSetAttribute(kernel_, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(shape_.shared_bytes));
    if (e != cudaSuccess) {
      cudaGetLastError();
      refusal_ = "the executor cannot use " + std::to_string(shape_.shared_bytes) +
                 " bytes of shared memory per block: " + cuda_text(e);
    }
  }
  int fit = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kernel_, threads, shape_.shared_bytes),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  if (!cooperative) {
    refusal_ = std::string(prop.name) + " does not support cooperative launches, so the "
               "persistent executor's blocks cannot be guaranteed to be co-resident";
  } else if (refusal_.empty() && fit == 0) {
    refusal_ = "no block of the executor (" + std::to_string(threads) + " threads, " +
               std::to_string(shape_.shared_bytes) + " bytes of shared memory) fits on one multiprocessor";
  } else if (refusal_.empty() && options_.blocks_per_sm > fit) {
    refusal_ = "asked for " + std::to_string(options_.blocks_per_sm) + " blocks per multiprocessor, but only " +
               std::to_string(fit) + " can be co-resident";
  }
  shape_.blocks_per_sm = options_.blocks_per_sm > 0 ? std::min(options_.blocks_per_sm, std::max(fit, 1))
                                                    : std::max(fit, 1);
  shape_.blocks = shape_.blocks_per_sm * shape_.multiprocessors;
  if (options_.max_blocks > 0) shape_.blocks = std::min(shape_.blocks, options_.max_blocks);
  shape_.workers = options_.workers_are_blocks ? shape_.blocks : shape_.blocks * shape_.warps_per_block;

  const DeviceLayout layout = make_device_layout(graph);
  num_tasks_ = graph.num_tasks();
  num_roots_ = static_cast<int32_t>(layout.roots.size());
  has_block_tasks_ = graph.has_block_tasks();
  if (has_block_tasks_ && options_.test_absent_worker >= 0)
    throw InputError("ExecOptions::test_absent_worker needs a graph without block kinds");
  initial_remaining_ = layout.remaining;
  args_host_ = graph.args;
  try {
    check_cuda(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming), "cudaEventCreate");
    check_cuda(cudaHostAlloc(reinterpret_cast<void**>(&watch_host_), sizeof(Watch), cudaHostAllocMapped),
               "cudaHostAlloc (watchdog flags)");
    std::memset(watch_host_, 0, sizeof(Watch));
    check_cuda(cudaHostGetDevicePointer(reinterpret_cast<void**>(&watch_device_), watch_host_, 0),
               "cudaHostGetDevicePointer");
    if (num_tasks_ > 0) {
      headers_ = device_array<TaskHeader>(layout.headers.size(), "cudaMalloc (task headers)");
      succs_ = device_array<uint32_t>(layout.succs.size(), "cudaMalloc (successors)");
      roots_ = device_array<int32_t>(layout.roots.size(), "cudaMalloc (roots)");
      remaining_ = device_array<int32_t>(layout.remaining.size(), "cudaMalloc (counters)");
      args_ = device_array<TaskArgs>(args_host_.size(), "cudaMalloc (task arguments)");
      slot_count_ = int64_t(num_tasks_) + shape_.workers;
      slots_ = device_array<unsigned long long>(size_t(slot_count_), "cudaMalloc (ready slots)");
      counters_ = device_array<RunCounters>(1, "cudaMalloc (run counters)");
      if (options_.trace) trace_ = device_array<TraceEvent>(size_t(num_tasks_), "cudaMalloc (trace)");
      upload(headers_, layout.headers, "upload of task headers");
      upload(succs_, layout.succs, "upload of successors");
      upload(roots_, layout.roots, "upload of roots");
      upload(remaining_, layout.remaining, "upload of counters");
      upload(args_, args_host_, "upload of task arguments");
      check_cuda(cudaMemset(slots_, 0, size_t(slot_count_) * sizeof(unsigned long long)), "cudaMemset (slots)");
      if (trace_ != nullptr)
        check_cuda(cudaMemset(trace_, 0, size_t(num_tasks_) * sizeof(TraceEvent)), "cudaMemset (trace)");
    }
  } catch (...) {
    release();
    throw;
  }
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
                           std::string(what) + " failed: " + cuda_text(e));
  };
  cudaError_t e = cudaSuccess;
  if (needs_full_reset_) {
    e = cudaMemcpyAsync(remaining_, initial_remaining_.data(), initial_remaining_.size() * sizeof(int32_t),
                        cudaMemcpyHostToDevice, stream);
    if (e != cudaSuccess) return failed(e, "counter reset");
    needs_full_reset_ = false;
  }
  if (dirty_first_ >= 0) {
    e = cudaMemcpyAsync(args_ + dirty_first_, args_host_.data() + dirty_first_,
                        size_t(dirty_last_ - dirty_first_ + 1) * sizeof(TaskArgs), cudaMemcpyHostToDevice, stream);
    if (e != cudaSuccess) return failed(e, "argument upload");
    dirty_first_ = dirty_last_ = -1;
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
      return Status::failure(Code::device_error, "the persistent executor failed: " + cuda_text(e));
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
  args_host_[size_t(task)] = args;
  dirty_first_ = dirty_first_ < 0 ? task : std::min(dirty_first_, task);
  dirty_last_ = std::max(dirty_last_, task);
}

std::vector<TraceEvent> DeviceGraph::trace() const {
  std::vector<TraceEvent> out;
  if (trace_ == nullptr) return out;
  out.resize(size_t(num_tasks_));
  check_cuda(cudaMemcpy(out.data(), trace_, out.size() * sizeof(TraceEvent), cudaMemcpyDeviceToHost),
             "trace download");
  return out;
}

void DeviceGraph::add_phantom_predecessor_for_testing(int32_t task) {
  if (task < 0 || task >= num_tasks_ || initial_remaining_[size_t(task)] < 2)
    throw InputError("add_phantom_predecessor_for_testing needs a task with two or more predecessors");
  if (needs_full_reset_) {
    check_cuda(cudaMemcpy(remaining_, initial_remaining_.data(), initial_remaining_.size() * sizeof(int32_t),
                          cudaMemcpyHostToDevice),
               "counter reset");
    needs_full_reset_ = false;
  }
  const int32_t inflated = initial_remaining_[size_t(task)] + 1;
  check_cuda(cudaMemcpy(remaining_ + task, &inflated, sizeof(int32_t), cudaMemcpyHostToDevice),
             "counter upload");
}

}  // namespace tiledqr::taskgraph
