// Tests for common/trace_json.{hpp,cpp}: the Chrome trace-event file Perfetto opens, and
// common/program/program.hpp's json_string, which writes its names.
#include "trace_json.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "program.hpp"

namespace tiledqr {
namespace {

size_t count(const std::string& text, const std::string& word) {
  size_t n = 0;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

TaskRecord record(TaskKind kind, int32_t k, int32_t i, int32_t j, int32_t worker, int64_t start, int64_t end) {
  const Task task{kind, k, i, j, /*piv=*/k};
  return TaskRecord{task, worker, start, end};
}

// Pass: one named track per worker (three workers, five tasks), one complete event per task with
// its kind, tile indices and times in microseconds from the first start, and a closed JSON object.
TEST(ChromeTrace, OneTrackPerWorkerAndOneEventPerTask) {
  const std::vector<TaskRecord> trace = {
      record(TaskKind::geqrt, 0, 0, 0, 0, 1000, 2500), record(TaskKind::ormqr, 0, 0, 1, 1, 2600, 3601),
      record(TaskKind::tsqrt, 0, 1, 0, 0, 2600, 4000), record(TaskKind::tsmqr, 0, 1, 1, 7, 4100, 6000),
      record(TaskKind::geqrt, 1, 1, 1, 7, 6100, 7000)};
  std::ostringstream out;
  write_chrome_trace(out, trace, "fr2_threaded", "worker");
  const std::string json = out.str();
  EXPECT_EQ(json.rfind("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", 0), 0u);
  EXPECT_EQ(json.substr(json.size() - 4), "\n]}\n");
  EXPECT_EQ(count(json, "\"name\":\"thread_name\""), 3u);
  for (const char* track : {"\"worker 0\"", "\"worker 1\"", "\"worker 7\""}) EXPECT_EQ(count(json, track), 1u) << track;
  EXPECT_EQ(count(json, "\"ph\":\"X\""), 5u);
  EXPECT_EQ(count(json, "\"name\":\"geqrt\""), 2u);
  EXPECT_NE(json.find("\"name\":\"ormqr\",\"pid\":1,\"tid\":1,\"ts\":1.600,\"dur\":1.001,"
                      "\"args\":{\"k\":0,\"i\":0,\"j\":1,\"piv\":0}}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"ts\":0.000,\"dur\":1.500"), std::string::npos);
  EXPECT_NE(json.find("\"args\":{\"name\":\"fr2_threaded\"}"), std::string::npos);
  EXPECT_EQ(count(json, "{"), count(json, "}"));
}

// Pass: an empty trace is still a valid file with the process track only.
TEST(ChromeTrace, EmptyTrace) {
  std::ostringstream out;
  write_chrome_trace(out, {}, "fr1_serial", "worker");
  EXPECT_EQ(out.str(), "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
                       "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"fr1_serial\"}}"
                       "\n]}\n");
}

// Pass: quotes and backslashes escaped, control characters as \u00XX, anything else as given.
TEST(ChromeTrace, JsonStringEscapes) {
  EXPECT_EQ(json_string("fr2_threaded"), "\"fr2_threaded\"");
  EXPECT_EQ(json_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_string(std::string("x\ny\t\x01", 5)), "\"x\\u000ay\\u0009\\u0001\"");
  EXPECT_EQ(json_string("H100 \xc2\xb5s"), "\"H100 \xc2\xb5s\"");  // UTF-8 passes through
  EXPECT_EQ(json_string(""), "\"\"");
  std::ostringstream out;
  write_chrome_trace(out, {}, "stage \"one\"\n", "worker");
  EXPECT_NE(out.str().find("{\"name\":\"stage \\\"one\\\"\\u000a\"}"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace tiledqr
