// write_chrome_trace; see trace_json.hpp.
#include "trace_json.hpp"

#include <algorithm>
#include <cstdint>
#include <set>

#include "program.hpp"

namespace tiledqr {
namespace {

// Nanoseconds as microseconds with three decimals, exactly (no floating point).
std::string microseconds(int64_t ns) {
  const char* sign = ns < 0 ? "-" : "";
  const uint64_t magnitude = ns < 0 ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
  std::string fraction = std::to_string(magnitude % 1000);
  fraction.insert(0, 3 - fraction.size(), '0');
  return sign + std::to_string(magnitude / 1000) + "." + fraction;
}

}  // namespace

void write_chrome_trace(std::ostream& out, const std::vector<TaskRecord>& trace,
                        const std::string& process_name, const std::string& track_label) {
  int64_t origin = 0;
  if (!trace.empty())
    origin = std::min_element(trace.begin(), trace.end(), [](const TaskRecord& a, const TaskRecord& b) {
               return a.start_ns < b.start_ns;
             })->start_ns;
  std::set<int32_t> workers;
  for (const TaskRecord& r : trace) workers.insert(r.worker);

  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  out << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":"
      << json_string(process_name) << "}}";
  for (const int32_t w : workers) {
    out << ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":" << w
        << ",\"args\":{\"name\":" << json_string(track_label + " " + std::to_string(w)) << "}}";
    out << ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":" << w
        << ",\"args\":{\"sort_index\":" << w << "}}";
  }
  for (const TaskRecord& r : trace) {
    const char* kind = task_kind_name(r.task.kind);
    out << ",\n{\"ph\":\"X\",\"cat\":\"task\",\"name\":\"" << kind << "\",\"pid\":1,\"tid\":" << r.worker
        << ",\"ts\":" << microseconds(r.start_ns - origin)
        << ",\"dur\":" << microseconds(std::max<int64_t>(0, r.end_ns - r.start_ns)) << ",\"args\":{\"k\":"
        << r.task.k << ",\"i\":" << r.task.i << ",\"j\":" << r.task.j << ",\"piv\":" << r.task.piv << "}}";
  }
  out << "\n]}\n";
}

}  // namespace tiledqr
