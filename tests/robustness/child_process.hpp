// Running the programs as child processes for the robustness tests: a
// scratch folder per test, stdout/stderr captured, an optional time limit
// and file-size limit, and the rows of the robustness CSV
// (TILEDQR_ROBUSTNESS_CSV, written by scripts/robustness-table).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace tiledqr {

namespace fs = std::filesystem;

struct Outcome {
  bool exited = false;     // false: killed by a signal (abort, segfault, the time limit, ...)
  int code = -1;           // exit code, or the signal number
  bool timed_out = false;  // killed by the test at its time limit
  double seconds = 0;      // from start to exit
  std::string out, err;
};

struct ChildLimits {
  double timeout_seconds = 300;   // SIGKILL after this long
  long long file_size_bytes = -1; // RLIMIT_FSIZE with SIGXFSZ ignored: writes beyond it fail (EFBIG)
};

inline std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A started child: its pid, where its output goes, when it started.
struct Child {
  pid_t pid = -1;
  fs::path out_path, err_path;
  std::chrono::steady_clock::time_point start;
  double timeout_seconds = 0;
};

// Starts `program args...` in `dir` (so messages carry only file names),
// with stdout and stderr captured in files of `dir` named after `tag`.
inline Child start_in(const fs::path& dir, const std::string& program, const std::vector<std::string>& args,
                      const ChildLimits& limits = {}, const std::string& tag = "") {
  Child c;
  c.out_path = dir / (".stdout" + tag);
  c.err_path = dir / (".stderr" + tag);
  c.timeout_seconds = limits.timeout_seconds;
  c.start = std::chrono::steady_clock::now();
  c.pid = fork();
  if (c.pid == 0) {
    const int out = open(c.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(c.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || chdir(dir.c_str()) != 0) _exit(127);
    dup2(out, 1);
    dup2(err, 2);
    if (limits.file_size_bytes >= 0) {
      signal(SIGXFSZ, SIG_IGN);  // an ignored signal stays ignored across exec
      const rlimit limit{rlim_t(limits.file_size_bytes), rlim_t(limits.file_size_bytes)};
      if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(127);
    }
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  return c;
}

// Waits for `c` (killing it at its time limit) and collects its output.
inline Outcome wait_for(const Child& c) {
  Outcome o;
  if (c.pid < 0) return o;
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(c.pid, &status, WNOHANG);
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - c.start).count();
    if (done == c.pid) break;
    if (done < 0) return o;
    if (o.seconds > c.timeout_seconds && !o.timed_out) {
      kill(c.pid, SIGKILL);
      o.timed_out = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  o.exited = WIFEXITED(status);
  o.code = o.exited ? WEXITSTATUS(status) : WTERMSIG(status);
  o.out = slurp(c.out_path);
  o.err = slurp(c.err_path);
  fs::remove(c.out_path);
  fs::remove(c.err_path);
  return o;
}

inline Outcome run_in(const fs::path& dir, const std::string& program, const std::vector<std::string>& args,
                      const ChildLimits& limits = {}) {
  return wait_for(start_in(dir, program, args, limits));
}

inline std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

inline std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// A scratch directory for one test, removed at the end.
class ScratchDir {
 public:
  ScratchDir() {
    char pattern[] = "/tmp/tiledqr-robust-XXXXXX";
    const char* made = mkdtemp(pattern);
    if (made == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = made;
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }
  void write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path_ / name, std::ios::binary) << bytes;
  }

 private:
  fs::path path_;
};

// ---------------------------------------------------------------------------
// The CSV of scripts/robustness-table

inline std::FILE* g_csv = nullptr;  // open when TILEDQR_ROBUSTNESS_CSV is set

// Opens TILEDQR_ROBUSTNESS_CSV for appending (several test programs add to
// one file), with the header when the file is empty. False on failure.
inline bool open_robustness_csv() {
  const char* path = std::getenv("TILEDQR_ROBUSTNESS_CSV");
  if (path == nullptr) return true;
  g_csv = std::fopen(path, "a");
  if (g_csv == nullptr) {
    std::perror(path);
    return false;
  }
  if (std::ftell(g_csv) == 0) std::fputs("class,stage,input,expected,outcome\n", g_csv);
  return true;
}

inline std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c == '\n' ? ' ' : c;
  }
  return quoted + "\"";
}

// The program's own message in `text`: its first line that starts with
// "<program>: " (progress lines come before it), else the first line.
inline std::string message_line(const std::string& text, const std::string& program) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(program + ": ", 0) == 0) return line;
  return first_line(text);
}

// One row: the real exit code and the message (stderr, else stdout), or
// the signal that killed the program.
inline void csv_row(const std::string& what, const char* stage, const std::string& input,
                    const std::string& expected, const Outcome& o) {
  if (g_csv == nullptr) return;
  std::string outcome;
  if (!o.exited) {
    outcome = o.timed_out ? "killed at the time limit" : "killed by signal " + std::to_string(o.code);
  } else {
    const std::string& text = o.err.empty() ? o.out : o.err;
    outcome = "exit " + std::to_string(o.code) + ": " + message_line(text, stage);
  }
  std::fprintf(g_csv, "%s,%s,%s,%s,%s\n", csv_field(what).c_str(), stage, csv_field(input).c_str(),
               csv_field(expected).c_str(), csv_field(outcome).c_str());
  std::fflush(g_csv);
}

}  // namespace tiledqr
