// Outputs and arguments: fr1_serial, fr2_threaded and
// tiledqr_bench run as child processes against device nodes, FIFOs,
// sockets and symbolic links made in a scratch folder (mknod, mkfifo,
// bind), a full device, a file-size limit, concurrent runs and malformed
// arguments. Each test states its pass rule; each case is also a row of the
// robustness CSV (TILEDQR_ROBUSTNESS_CSV, see child_process.hpp).
//
// Arguments: the paths of fr1_serial, fr2_threaded and tiledqr_bench.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "child_process.hpp"

namespace tiledqr {
namespace {

std::string g_fr1, g_fr2, g_bench;

struct Stage {
  const char* name;
  const std::string* program;
};
const Stage kStages[] = {{"fr1_serial", &g_fr1}, {"fr2_threaded", &g_fr2}};

const char kBanner[] = "%%MatrixMarket matrix array real general\n";

bool is_char_device(const fs::path& p) { return fs::status(p).type() == fs::file_type::character; }

// Files of `dir` other than those named; temporaries left behind show here.
std::vector<std::string> other_files(const fs::path& dir, const std::vector<std::string>& known) {
  std::vector<std::string> extra;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (std::find(known.begin(), known.end(), name) == known.end()) extra.push_back(name);
  }
  return extra;
}

// A character device like the system's (1, minor) made in `dir`: 3 is
// null, 5 zero, 7 full. False where mknod is not permitted.
bool make_device(const fs::path& dir, const std::string& name, unsigned minor) {
  return ::mknod((dir / name).c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0;
}

// `name` in `dir` as a full device: one made with mknod, else the system's
// /dev/full by a symbolic link (written to only, which is harmless).
void make_full_device(const fs::path& dir, const std::string& name) {
  if (!make_device(dir, name, 7)) fs::create_symlink("/dev/full", dir / name);
}

std::string joined(const std::vector<std::string>& args) {
  std::string text;
  for (const std::string& a : args) text += (text.empty() ? "" : " ") + a;
  return text;
}

// Pass rule shared by the refusals: the program exits (no signal, no time
// limit) with `code`, and stderr contains each needle and no uncaught
// exception.
void expect_exit(const Outcome& o, int code, const std::vector<std::string>& needles) {
  ASSERT_TRUE(o.exited) << (o.timed_out ? "killed at the time limit" : "killed by signal " + std::to_string(o.code))
                        << "; stderr: " << o.err;
  EXPECT_EQ(o.code, code) << o.err;
  for (const std::string& needle : needles)
    EXPECT_NE(o.err.find(needle), std::string::npos) << "stderr lacks '" << needle << "': " << o.err;
  EXPECT_EQ(o.err.find("terminate called"), std::string::npos) << o.err;
}

// ---------------------------------------------------------------------------
// Item 1: device nodes, FIFOs, sockets and symbolic links

// Pass rule: --output-r on a character device (a null device made with
// mknod) exits 0 and leaves the node a character device; on a full device
// it exits 2 with "No space left on device", the node stays a device and
// the folder holds no temporary. Skipped where mknod is not permitted.
TEST(RobustOutputs, DeviceNodesAreWrittenInPlace) {
  for (const Stage& stage : kStages) {
    ScratchDir dir;
    if (!make_device(dir.path(), "null", 3)) GTEST_SKIP() << "mknod not permitted: " << std::strerror(errno);
    make_full_device(dir.path(), "full");
    const Outcome o = run_in(dir.path(), *stage.program, {"--m", "6", "--n", "4", "--output-r", "null"});
    csv_row("output is a character device (null)", stage.name, "--output-r null",
            "exit 0, written in place, the node kept", o);
    SCOPED_TRACE(stage.name);
    expect_exit(o, 0, {});
    EXPECT_TRUE(is_char_device(dir.path() / "null")) << "the device node was replaced";

    const Outcome full = run_in(dir.path(), *stage.program, {"--m", "6", "--n", "4", "--output-r", "full"});
    csv_row("output is a full device", stage.name, "--output-r full",
            "exit 2, message with \"No space left on device\", the node kept", full);
    expect_exit(full, 2, {"--output-r full", "No space left on device"});
    EXPECT_TRUE(fs::is_symlink(dir.path() / "full") || is_char_device(dir.path() / "full"));
    EXPECT_EQ(other_files(dir.path(), {"null", "full"}), std::vector<std::string>{});
  }
}

// Pass rule: a FIFO is written in place (the reader gets the whole Matrix
// Market text of R, the FIFO stays a FIFO); a symbolic link is kept and
// its target replaced with R, also a dangling one (the target is created);
// a socket is refused with exit 2 naming it and stays a socket. No
// temporary is left in the folder.
TEST(RobustOutputs, FifosSocketsAndSymlinksAreKept) {
  for (const Stage& stage : kStages) {
    SCOPED_TRACE(stage.name);
    ScratchDir dir;
    const fs::path& d = dir.path();
    ASSERT_EQ(::mkfifo((d / "pipe").c_str(), 0644), 0);
    // Held open for reading and writing, so the program's open does not
    // wait for a reader; R (4 x 4) fits in the pipe's buffer.
    const int reader = ::open((d / "pipe").c_str(), O_RDWR | O_NONBLOCK);
    ASSERT_GE(reader, 0);
    const Outcome o = run_in(d, *stage.program, {"--m", "6", "--n", "4", "--output-r", "pipe"});
    std::string received(1 << 16, '\0');
    const ssize_t got = ::read(reader, received.data(), received.size());
    ::close(reader);
    received.resize(got > 0 ? size_t(got) : 0);
    csv_row("output is a FIFO", stage.name, "--output-r pipe", "exit 0, R written into the FIFO, the FIFO kept", o);
    expect_exit(o, 0, {});
    EXPECT_TRUE(fs::is_fifo(d / "pipe")) << "the FIFO was replaced";
    EXPECT_EQ(received.rfind(std::string(kBanner) + "4 4\n", 0), 0u) << received;
    EXPECT_EQ(std::count(received.begin(), received.end(), '\n'), 2 + 16) << received;

    fs::create_directory(d / "data");
    dir.write("data/r.mtx", "old\n");
    fs::create_symlink("data/r.mtx", d / "link");
    fs::create_symlink("data/new.mtx", d / "dangling");
    const Outcome linked = run_in(d, *stage.program, {"--m", "6", "--n", "4", "--output-r", "link", "--output-q", "dangling"});
    csv_row("output is a symbolic link (also a dangling one)", stage.name, "--output-r link --output-q dangling",
            "exit 0, the links kept, their targets written", linked);
    expect_exit(linked, 0, {});
    EXPECT_TRUE(fs::is_symlink(d / "link"));
    EXPECT_TRUE(fs::is_symlink(d / "dangling"));
    EXPECT_EQ(slurp(d / "data/r.mtx").rfind(std::string(kBanner) + "4 4\n", 0), 0u);
    EXPECT_EQ(slurp(d / "data/new.mtx").rfind(std::string(kBanner) + "6 4\n", 0), 0u);
    EXPECT_EQ(other_files(d / "data", {"r.mtx", "new.mtx"}), std::vector<std::string>{});

    const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_GE(sock, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const std::string sock_path = (d / "sock").string();
    ASSERT_LT(sock_path.size(), sizeof address.sun_path);
    std::strcpy(address.sun_path, sock_path.c_str());
    ASSERT_EQ(::bind(sock, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    const Outcome socket_run = run_in(d, *stage.program, {"--m", "6", "--n", "4", "--output-r", "sock"});
    ::close(sock);
    csv_row("output is a socket", stage.name, "--output-r sock", "exit 2, message naming it, the socket kept",
            socket_run);
    expect_exit(socket_run, 2, {"--output-r sock", "socket"});
    EXPECT_TRUE(fs::is_socket(d / "sock")) << "the socket was replaced";
    EXPECT_EQ(other_files(d, {"pipe", "data", "link", "dangling", "sock"}), std::vector<std::string>{});
  }
}

// ---------------------------------------------------------------------------
// Item 2: concurrent runs

// Pass rule: two runs writing the same output at once (seeds 1 and 2, Q of
// 400 x 300, about 3 MB, five times) both exit 0 and leave one whole run's
// file: byte-identical to the same seed's output written alone; no
// temporary is left.
TEST(RobustOutputs, ConcurrentRunsLeaveOneWholeOutput) {
  ScratchDir dir;
  const fs::path& d = dir.path();
  auto args = [](const char* seed, const char* out) {
    return std::vector<std::string>{"--m", "400", "--n", "300", "--seed", seed, "--output-q", out};
  };
  ASSERT_EQ(run_in(d, g_fr1, args("1", "one.mtx")).code, 0);
  ASSERT_EQ(run_in(d, g_fr1, args("2", "two.mtx")).code, 0);
  const std::string one = slurp(d / "one.mtx"), two = slurp(d / "two.mtx");
  ASSERT_NE(one, two);
  for (int round = 0; round < 5; ++round) {
    const Child first = start_in(d, g_fr1, args("1", "shared.mtx"), {}, "1");
    const Child second = start_in(d, g_fr1, args("2", "shared.mtx"), {}, "2");
    const Outcome a = wait_for(first), b = wait_for(second);
    const std::string shared = slurp(d / "shared.mtx");
    Outcome recorded = a.code != 0 ? a : b;
    if (recorded.code == 0) recorded.out = shared == one || shared == two ? "one whole run's output" : "mixed output";
    if (round == 0)
      csv_row("two runs writing the same output at once", "fr1_serial", "--output-q shared.mtx (twice)",
              "exit 0 twice, the file one whole run's output", recorded);
    SCOPED_TRACE("round " + std::to_string(round) + "; stderr: " + a.err + b.err);
    expect_exit(a, 0, {});
    expect_exit(b, 0, {});
    EXPECT_TRUE(shared == one || shared == two) << "the output mixes the two runs (" << shared.size() << " bytes)";
    EXPECT_EQ(other_files(d, {"one.mtx", "two.mtx", "shared.mtx"}), std::vector<std::string>{});
  }
}

// ---------------------------------------------------------------------------
// Item 3: errors at flush and close

// Pass rule: under a file-size limit of 1024 bytes, a trace of about 2.8 kB
// and a Q of about 4 kB (both held in the writer's buffer until the end, so
// the error shows only at the last flush) exit 2 with "File too large",
// and neither the output nor a temporary is left.
TEST(RobustOutputs, WriteErrorsAtCloseExit2AndLeaveNoTemporary) {
  ChildLimits limits;
  limits.file_size_bytes = 1024;
  const std::vector<std::vector<std::string>> commands = {
      {"--m", "12", "--n", "12", "--tile", "2", "--trace", "t.csv"},
      {"--m", "40", "--n", "4", "--output-q", "q.mtx"},
  };
  for (const Stage& stage : kStages)
    for (const auto& args : commands) {
      ScratchDir dir;
      const Outcome o = run_in(dir.path(), *stage.program, args, limits);
      csv_row("write fails at the last flush (file-size limit 1 kB)", stage.name, joined(args),
              "exit 2, message with \"File too large\", no output or temporary", o);
      SCOPED_TRACE(std::string(stage.name) + " " + joined(args));
      expect_exit(o, 2, {args[args.size() - 2] + " " + args.back(), "File too large"});
      EXPECT_EQ(other_files(dir.path(), {}), std::vector<std::string>{});
    }
}

// ---------------------------------------------------------------------------
// Items 4 and 5: all outputs or none, checked before the input is read

// Pass rule: when one output fails — Q on a full device, or Q over a 1 kB
// file-size limit that R fits in — the run exits 2, an existing R keeps its
// old contents, a new R is not created, and no temporary is left.
TEST(RobustOutputs, AllOutputsOrNone) {
  for (const Stage& stage : kStages) {
    SCOPED_TRACE(stage.name);
    ScratchDir dir;
    const fs::path& d = dir.path();
    make_full_device(d, "full");
    dir.write("r.mtx", "old\n");
    const std::vector<std::string> to_full = {"--m", "6", "--n", "4", "--output-r", "r.mtx", "--output-x", "x.mtx",
                                              "--rhs", "b.mtx", "--output-q", "full"};
    dir.write("b.mtx", std::string(kBanner) + "6 1\n1\n2\n3\n4\n5\n6\n");
    const Outcome o = run_in(d, *stage.program, to_full);
    csv_row("one of several outputs fails (Q on a full device)", stage.name, "--output-r r.mtx --output-x x.mtx --output-q full",
            "exit 2, R and X untouched (none written)", o);
    expect_exit(o, 2, {"--output-q full"});
    EXPECT_EQ(slurp(d / "r.mtx"), "old\n");
    EXPECT_FALSE(fs::exists(d / "x.mtx"));
    EXPECT_EQ(other_files(d, {"full", "r.mtx", "b.mtx"}), std::vector<std::string>{});

    ChildLimits limits;
    limits.file_size_bytes = 1024;
    const Outcome limited = run_in(d, *stage.program, {"--m", "40", "--n", "4", "--output-r", "r.mtx", "--output-q", "q.mtx"}, limits);
    csv_row("one of several outputs fails (Q over a file-size limit)", stage.name, "--output-r r.mtx --output-q q.mtx",
            "exit 2, R untouched", limited);
    expect_exit(limited, 2, {"--output-q q.mtx", "File too large"});
    EXPECT_EQ(slurp(d / "r.mtx"), "old\n");
    EXPECT_EQ(other_files(d, {"full", "r.mtx", "b.mtx"}), std::vector<std::string>{});
  }
}

// Pass rule: a bad output path (a missing folder, a directory) is refused
// with exit 2 in under 3 s, before the input is read: the input is a FIFO
// nobody writes to, which a program reading it first would wait on forever
// (the test kills it after 20 s), or a 4000 x 4000 random matrix whose
// factorisation and check take seconds.
TEST(RobustOutputs, BadOutputPathRefusedBeforeReadingInput) {
  for (const Stage& stage : kStages) {
    SCOPED_TRACE(stage.name);
    ScratchDir dir;
    const fs::path& d = dir.path();
    ASSERT_EQ(::mkfifo((d / "input.mtx").c_str(), 0644), 0);
    fs::create_directory(d / "folder");
    ChildLimits limits;
    limits.timeout_seconds = 20;
    const std::vector<std::vector<std::string>> commands = {
        {"--input", "input.mtx", "--output-r", "missing/r.mtx"},
        {"--input", "input.mtx", "--trace", "folder"},
        {"--m", "4000", "--n", "4000", "--output-q", "missing/q.mtx"},
    };
    for (const auto& args : commands) {
      const Outcome o = run_in(d, *stage.program, args, limits);
      csv_row("bad output path, slow or blocking input", stage.name, joined(args),
              "exit 2 in under 3 s, before reading the input", o);
      expect_exit(o, 2, {args[args.size() - 2] + " " + args.back()});
      EXPECT_LT(o.seconds, 3.0) << joined(args);
    }
  }
}

// ---------------------------------------------------------------------------
// Items 6–8: tiledqr_bench

// FR1 on tiny shapes (8x8 unless `extra` gives --shapes), one timed run.
std::vector<std::string> bench_args(std::vector<std::string> extra) {
  std::vector<std::string> args = {"--stages", "fr1", "--repeats", "1", "--warmup", "0"};
  if (std::find(extra.begin(), extra.end(), "--shapes") == extra.end()) extra.insert(extra.end(), {"--shapes", "8x8"});
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// Pass rule: each malformed list or number exits 2 (never SIGABRT) with
// one message that starts "tiledqr_bench:" and names the option; a corrupt
// row of the CSV under --resume exits 2 naming the file, line and column.
TEST(RobustBench, MalformedArgumentsExit2NamingThem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--tiles", "x"},   {"--tiles", "32,"},  {"--threads", "2x"}, {"--threads", "0"},
      {"--weights", "abc"}, {"--weights", "nan"}, {"--executors", "-1"}, {"--shapes", "8x8y"},
      {"--shapes", "0x8"}, {"--repeats", "1e3"}, {"--budget", "1e400"}, {"--inner-block", "0x10"},
  };
  for (const auto& [option, value] : cases) {
    ScratchDir dir;
    const Outcome o = run_in(dir.path(), g_bench, bench_args({option, value, "--out", "b.csv"}));
    csv_row("malformed argument", "tiledqr_bench", option + " " + value, "exit 2, message naming the option", o);
    SCOPED_TRACE(option + " " + value);
    expect_exit(o, 2, {"tiledqr_bench: ", option});
    EXPECT_EQ(o.err.find("tiledqr_bench: "), 0u) << o.err;
    EXPECT_FALSE(fs::exists(dir.path() / "b.csv"));
  }
  ScratchDir dir;
  ASSERT_EQ(run_in(dir.path(), g_bench, bench_args({"--out", "b.csv"})).code, 0);
  std::string text = slurp(dir.path() / "b.csv");
  const size_t tile = text.find(",flat,32,");
  ASSERT_NE(tile, std::string::npos) << text;
  text.replace(tile, 9, ",flat,3x,");
  dir.write("b.csv", text);
  const Outcome o = run_in(dir.path(), g_bench, bench_args({"--out", "b.csv", "--resume", "--shapes", "8x8,16x16"}));
  // Line 4: the command line, the build's provenance, the header, then the row.
  csv_row("corrupt row under --resume", "tiledqr_bench", "--resume, tile '3x' on line 4",
          "exit 2, message naming file, line and column", o);
  expect_exit(o, 2, {"b.csv:4:", "tile", "'3x'"});
  EXPECT_EQ(slurp(dir.path() / "b.csv"), text);
}

// Pass rule: --out on a full device exits 2 with "No space left on device"
// (never "wrote"), and rows beyond a 1 kB file-size limit exit 2 with
// "File too large" — a failed write ends the run instead of counting as a
// failed case.
TEST(RobustBench, FailedWriteExit2) {
  ScratchDir dir;
  make_full_device(dir.path(), "full");
  const Outcome full = run_in(dir.path(), g_bench, bench_args({"--out", "full"}));
  csv_row("--out on a full device", "tiledqr_bench", "--out full", "exit 2, message with the errno text", full);
  expect_exit(full, 2, {"--out full", "No space left on device"});
  EXPECT_EQ(full.err.find("wrote"), std::string::npos) << full.err;

  ChildLimits limits;
  limits.file_size_bytes = 1024;
  const Outcome limited =
      run_in(dir.path(), g_bench, bench_args({"--shapes", "8x8,9x9,10x10,11x11,12x12,13x13", "--out", "b.csv"}), limits);
  csv_row("CSV rows beyond a file-size limit", "tiledqr_bench", "--out b.csv, 1 kB limit",
          "exit 2, message with \"File too large\"", limited);
  expect_exit(limited, 2, {"--out b.csv", "File too large"});
}

// Pass rule: --resume on a CSV whose last row lacks its newline adds the
// new row on a line of its own (every row has the header's 22 fields); on
// a CSV with another header it exits 2 naming the file and leaves it as it
// was.
TEST(RobustBench, ResumeRepairsNewlineAndRefusesForeignHeader) {
  ScratchDir dir;
  const fs::path& d = dir.path();
  ASSERT_EQ(run_in(d, g_bench, bench_args({"--out", "b.csv"})).code, 0);
  std::string text = slurp(d / "b.csv");
  ASSERT_EQ(text.back(), '\n');
  text.pop_back();
  dir.write("b.csv", text);
  const Outcome o = run_in(d, g_bench, bench_args({"--out", "b.csv", "--resume", "--shapes", "8x8,16x16"}));
  csv_row("--resume on a CSV without a final newline", "tiledqr_bench", "--resume", "exit 0, the new row on its own line", o);
  expect_exit(o, 0, {});
  std::istringstream lines(slurp(d / "b.csv"));
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), 22) << line;  // the driver's 23 columns
    ++rows;
  }
  EXPECT_EQ(rows, 3);  // header, 8x8 kept, 16x16 added

  const std::string foreign = "name,value\nalpha,1\n";
  dir.write("other.csv", foreign);
  const Outcome refused = run_in(d, g_bench, bench_args({"--out", "other.csv", "--resume"}));
  csv_row("--resume on another program's CSV", "tiledqr_bench", "--resume --out other.csv",
          "exit 2, message naming the file, the file unchanged", refused);
  expect_exit(refused, 2, {"other.csv:1:", "not a tiledqr_bench CSV"});
  EXPECT_EQ(slurp(d / "other.csv"), foreign);
}

// ---------------------------------------------------------------------------
// Item 9: values that were accepted

// Pass rule: an unknown --precisions value of tiledqr_bench, --tolerance
// 1e400, fr1_serial --threads 4, and one file named by --output-r and
// --output-q (also as ./r.mtx or through a symbolic link) each exit 2
// naming the option, writing nothing; fr2_threaded --threads 4 still runs.
TEST(RobustArguments, RefusedValues) {
  ScratchDir dir;
  const fs::path& d = dir.path();
  const Outcome precision = run_in(d, g_bench, bench_args({"--precisions", "half", "--out", "b.csv"}));
  csv_row("unknown precision", "tiledqr_bench", "--precisions half", "exit 2, message naming it", precision);
  expect_exit(precision, 2, {"--precisions", "'half'"});
  EXPECT_FALSE(fs::exists(d / "b.csv"));

  fs::create_symlink("r.mtx", d / "r_link");
  for (const Stage& stage : kStages) {
    SCOPED_TRACE(stage.name);
    const std::vector<std::vector<std::string>> refused = {
        {"--m", "6", "--n", "4", "--check", "--tolerance", "1e400"},
        {"--m", "6", "--n", "4", "--output-r", "r.mtx", "--output-q", "r.mtx"},
        {"--m", "6", "--n", "4", "--output-r", "./r.mtx", "--output-q", "r.mtx"},
        {"--m", "6", "--n", "4", "--output-r", "r_link", "--trace", "r.mtx"},
    };
    const std::vector<std::string> named = {"--tolerance", "same file", "same file", "same file"};
    for (size_t k = 0; k < refused.size(); ++k) {
      const Outcome o = run_in(d, *stage.program, refused[k]);
      csv_row(k == 0 ? "tolerance beyond double" : "one file for two outputs", stage.name, joined(refused[k]),
              "exit 2, message naming it, nothing written", o);
      expect_exit(o, 2, {named[k]});
      EXPECT_FALSE(fs::exists(d / "r.mtx"));
    }
  }
  const Outcome serial = run_in(d, g_fr1, {"--m", "6", "--n", "4", "--threads", "4"});
  csv_row("--threads for the serial stage", "fr1_serial", "--threads 4", "exit 2, message saying FR1 is serial", serial);
  expect_exit(serial, 2, {"--threads 4", "serial"});
  const Outcome threaded = run_in(d, g_fr2, {"--m", "6", "--n", "4", "--threads", "4"});
  expect_exit(threaded, 0, {});
}

}  // namespace
}  // namespace tiledqr

// The program paths are the three non-GoogleTest arguments.
int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s FR1_SERIAL FR2_THREADED TILEDQR_BENCH [gtest options]\n", argv[0]);
    return 2;
  }
  tiledqr::g_fr1 = std::filesystem::absolute(argv[1]).string();
  tiledqr::g_fr2 = std::filesystem::absolute(argv[2]).string();
  tiledqr::g_bench = std::filesystem::absolute(argv[3]).string();
  if (!tiledqr::open_robustness_csv()) return 2;
  const int result = RUN_ALL_TESTS();
  if (tiledqr::g_csv != nullptr) std::fclose(tiledqr::g_csv);
  return result;
}
