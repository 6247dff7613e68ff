// Tests for common/output_file and common/strict_numbers: how a destination
// is classified (replace, in place, refused), which outputs count as one
// file, what an unfinished or failed write leaves behind, and the strict
// number rules shared by the programs' options.
#include "output_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "errors.hpp"
#include "strict_numbers.hpp"

namespace tiledqr {
namespace {

namespace fs = std::filesystem;

// A scratch folder, removed at the end.
struct Folder {
  fs::path path;
  Folder() {
    char pattern[] = "/tmp/tiledqr-output-XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~Folder() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The InputError message of `run`, or "" when it does not throw one.
std::string error_of(const std::function<void()>& run) {
  try {
    run();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

size_t entries(const fs::path& folder) {
  return size_t(std::distance(fs::directory_iterator(folder), fs::directory_iterator()));
}

// Pass rule: an absent file in an existing folder and a regular file are
// replaced; a FIFO is written in place; a symbolic link (also a dangling,
// relative one in a subfolder) resolves to its target; a missing folder,
// a directory and an empty path are refused or none, with the option, the
// path and the errno text in the message; nothing is left in the folder.
TEST(OutputFile, DestinationsAreClassifiedByFileType) {
  Folder dir;
  EXPECT_EQ(check_output_path("--o", dir / "new.mtx").kind, OutputKind::replace);
  std::ofstream(dir / "old.mtx") << "old\n";
  EXPECT_EQ(check_output_path("--o", dir / "old.mtx").kind, OutputKind::replace);
  ASSERT_EQ(::mkfifo((dir / "pipe").c_str(), 0644), 0);
  EXPECT_EQ(check_output_path("--o", dir / "pipe").kind, OutputKind::in_place);
  fs::create_directory(dir.path / "sub");
  fs::create_symlink("later.mtx", dir.path / "sub" / "link");
  const OutputTarget linked = check_output_path("--o", dir / "sub/link");
  EXPECT_EQ(linked.kind, OutputKind::replace);
  EXPECT_EQ(linked.target, dir / "sub/later.mtx");
  EXPECT_EQ(check_output_path("--o", "").kind, OutputKind::none);

  const std::string missing = error_of([&] { check_output_path("--o", dir / "no/x.mtx"); });
  EXPECT_NE(missing.find("--o " + dir / "no/x.mtx"), std::string::npos) << missing;
  EXPECT_NE(missing.find(std::strerror(ENOENT)), std::string::npos) << missing;
  const std::string folder = error_of([&] { check_output_path("--o", dir / "sub"); });
  EXPECT_NE(folder.find(std::strerror(EISDIR)), std::string::npos) << folder;
  EXPECT_EQ(entries(dir.path), 3u);  // old.mtx, pipe, sub
}

// Pass rule: the same file named twice — the same text, "./" before it, a
// symbolic link to it, a hard link — is refused naming both options;
// different files pass; a character device may be named twice (skipped
// where mknod is not permitted).
TEST(OutputFile, OneFileForTwoOutputsIsRefused) {
  Folder dir;
  const std::string r = dir / "r.mtx";
  fs::create_symlink("r.mtx", dir.path / "link");
  auto refused = [](const std::string& a, const std::string& b) {
    return error_of([&] { check_distinct_outputs({check_output_path("--a", a), check_output_path("--b", b)}); });
  };
  EXPECT_NE(refused(r, r).find("--a " + r + " and --b " + r + " are the same file"), std::string::npos);
  EXPECT_NE(refused((dir.path / "." / "r.mtx").string(), r), "");
  EXPECT_NE(refused(dir / "link", r), "");
  EXPECT_EQ(refused(r, dir / "q.mtx"), "");
  std::ofstream(r) << "x\n";
  fs::create_hard_link(r, dir.path / "hard");
  EXPECT_NE(refused(dir / "hard", r), "");
  if (::mknod((dir / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) GTEST_SKIP() << "mknod not permitted";
  EXPECT_EQ(refused(dir / "null", dir / "null"), "");
}

// Pass rule: an OutputFile destroyed before commit() leaves no file; a
// committed one holds exactly what was written, with the mode a new file
// gets (0666 less the umask) or, over an existing file, that file's mode.
TEST(OutputFile, TemporaryIsRemovedUnlessCommitted) {
  Folder dir;
  const OutputTarget target = check_output_path("", dir / "out.txt");
  { OutputFile abandoned(target); abandoned.write("partial"); }
  EXPECT_EQ(entries(dir.path), 0u);
  OutputFile file(target);
  file.write("one\n");
  file.write(std::string(3 << 20, 'x'));  // more than the buffer
  file.commit();
  EXPECT_EQ(read_all(dir / "out.txt"), "one\n" + std::string(3 << 20, 'x'));
  EXPECT_EQ(entries(dir.path), 1u);
  const mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(fs::status(dir.path / "out.txt").permissions(), fs::perms(0666 & ~mask));
  fs::permissions(dir.path / "out.txt", fs::perms(0640));
  write_text_output("", dir / "out.txt", "two\n");
  EXPECT_EQ(read_all(dir / "out.txt"), "two\n");
  EXPECT_EQ(fs::status(dir.path / "out.txt").permissions(), fs::perms(0640));
}

// Pass rule: when the second of two outputs fails while being written, the
// first destination keeps its old contents and no temporary is left.
TEST(OutputFile, WriteOutputsIsAllOrNone) {
  Folder dir;
  std::ofstream(dir / "a.txt") << "old a\n";
  const std::vector<OutputJob> jobs = {
      {check_output_path("--a", dir / "a.txt"), [](OutputFile& out) { out.write("new a\n"); }},
      {check_output_path("--b", dir / "b.txt"), [](OutputFile& out) {
         out.write("half of b");
         throw InputError("--b: disk on fire");
       }},
  };
  EXPECT_EQ(error_of([&] { write_outputs(jobs); }), "--b: disk on fire");
  EXPECT_EQ(read_all(dir / "a.txt"), "old a\n");
  EXPECT_EQ(entries(dir.path), 1u);
}

// Pass rule: decimal integers only ("010" is ten; hexadecimal, blanks,
// signs where not allowed and out-of-range values refused, naming `what`);
// finite decimal reals only (no inf, nan, hexadecimal or overflow), with
// the lower bound enforced.
TEST(StrictNumbers, OnlyDecimalInRange) {
  EXPECT_EQ(parse_integer("010", "--n", 0, 100), 10);
  EXPECT_EQ(parse_integer("-3", "--n", -5, 5), -3);
  for (const char* bad : {"0x10", " 5", "5 ", "", "+5", "1e3", "99999999999999999999"})
    EXPECT_NE(error_of([&] { parse_integer(bad, "--n", -100, 100); }).find("--n"), std::string::npos) << bad;
  EXPECT_NE(error_of([&] { parse_integer("101", "--n", 0, 100); }).find("out of range"), std::string::npos);
  EXPECT_EQ(parse_real("2.5e-3", "--w", 0, true), 2.5e-3);
  for (const char* bad : {"1e400", "inf", "nan", "0x1p3", "1.5x", "", "-1"})
    EXPECT_NE(error_of([&] { parse_real(bad, "--w", 0, false); }).find("--w"), std::string::npos) << bad;
  EXPECT_NE(error_of([&] { parse_real("0", "--w", 0, true); }).find("> 0"), std::string::npos);
}

}  // namespace
}  // namespace tiledqr
