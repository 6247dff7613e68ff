// Output files written safely; see output_file.hpp for the rules.
#include "output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "errors.hpp"

namespace tiledqr {
namespace {

constexpr size_t buffer_bytes = size_t(1) << 20;
constexpr int max_symlink_hops = 40;  // as the kernel's own limit (ELOOP)

std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string file_identity(const struct stat& st) {
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
}

[[noreturn]] void refuse(const OutputTarget& t, const std::string& why) {
  throw InputError(t.name() + ": cannot write: " + why);
}

// A new file in `folder`, "<base>.XXXXXX.tmp", opened for writing; -1 and
// errno on failure.
int make_temporary(const std::string& folder, const std::string& base, std::string& name) {
  std::string pattern = (folder == "/" ? "" : folder) + "/" + base + ".XXXXXX.tmp";
  std::vector<char> text(pattern.begin(), pattern.end());
  text.push_back('\0');
  const int fd = ::mkstemps(text.data(), 4);
  if (fd >= 0) name = text.data();
  return fd;
}

// The mode a new file gets from open(2) with 0666: the umask applies.
mode_t default_file_mode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

bool under_proc(const std::string& path) { return path.rfind("/proc/", 0) == 0; }

}  // namespace

std::string OutputTarget::name() const { return option.empty() ? path : option + " " + path; }

OutputTarget check_output_path(const std::string& option, const std::string& path) {
  OutputTarget t;
  t.option = option;
  t.path = path;
  if (path.empty()) return t;
  // Follow symbolic links one hop at a time, so a dangling link names the
  // file to create.
  std::string current = path;
  struct stat st {};
  bool exists = false;
  for (int hop = 0;; ++hop) {
    if (hop > max_symlink_hops) refuse(t, std::strerror(ELOOP));
    if (under_proc(current)) {  // /proc/self/fd/N and the like: never renamed over
      if (::stat(current.c_str(), &st) != 0) refuse(t, std::strerror(errno));
      exists = true;
      break;
    }
    if (::lstat(current.c_str(), &st) != 0) {
      if (errno != ENOENT) refuse(t, std::strerror(errno));
      break;
    }
    exists = true;
    if (!S_ISLNK(st.st_mode)) break;
    std::vector<char> link(PATH_MAX + 1);
    const ssize_t length = ::readlink(current.c_str(), link.data(), link.size() - 1);
    if (length < 0) refuse(t, std::strerror(errno));
    const std::string destination(link.data(), size_t(length));
    current = destination[0] == '/' || current.find('/') == std::string::npos
                  ? destination
                  : folder_of(current) + "/" + destination;
    exists = false;
  }
  t.target = current;

  if (exists && S_ISDIR(st.st_mode)) refuse(t, std::strerror(EISDIR));
  if (exists && S_ISSOCK(st.st_mode)) refuse(t, "it is a socket, which cannot be opened as a file");
  if (exists && (!S_ISREG(st.st_mode) || under_proc(current))) {
    if (::access(current.c_str(), W_OK) != 0) refuse(t, std::strerror(errno));
    t.kind = OutputKind::in_place;
    t.identity = file_identity(st);
    return t;
  }
  if (exists && ::access(current.c_str(), W_OK) != 0) refuse(t, std::strerror(errno));
  // The folder must take a new file: the one test that covers a missing
  // folder, a file in its place, permissions and a read-only file system.
  const std::string folder = folder_of(current);
  std::string probe;
  const int fd = make_temporary(folder, "." + base_of(current), probe);
  if (fd < 0) refuse(t, "folder '" + folder + "': " + std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
  struct stat folder_st {};
  if (::stat(folder.c_str(), &folder_st) != 0) refuse(t, "folder '" + folder + "': " + std::strerror(errno));
  t.kind = OutputKind::replace;
  t.identity = exists ? file_identity(st) : file_identity(folder_st) + "/" + base_of(current);
  return t;
}

void check_distinct_outputs(const std::vector<OutputTarget>& targets) {
  for (size_t a = 0; a < targets.size(); ++a)
    for (size_t b = a + 1; b < targets.size(); ++b) {
      const OutputTarget &x = targets[a], &y = targets[b];
      if (!x.requested() || !y.requested() || x.identity != y.identity) continue;
      struct stat st {};
      if (x.kind == OutputKind::in_place && ::stat(x.target.c_str(), &st) == 0 && S_ISCHR(st.st_mode))
        continue;
      throw InputError(x.name() + " and " + y.name() + " are the same file; each output needs its own");
    }
}

OutputFile::OutputFile(const OutputTarget& target, Mode mode) : target_(target) {
  if (!target.requested()) throw InputError("no output path given");
  buffer_.reserve(buffer_bytes);
  if (target.kind == OutputKind::replace && mode == Mode::replace) {
    struct stat st {};
    const mode_t file_mode = ::stat(target.target.c_str(), &st) == 0 ? (st.st_mode & 07777) : default_file_mode();
    fd_ = make_temporary(folder_of(target.target), base_of(target.target), temporary_);
    if (fd_ < 0) fail("create a temporary file in its folder", errno);
    if (::fchmod(fd_, file_mode) != 0) fail("set the mode of", errno);
    regular_ = true;
    return;
  }
  // In place means appended too: a /proc/self/fd link to a regular file
  // (/dev/stdout redirected to a file) then continues after what is there.
  int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC | O_APPEND;
  if (mode == Mode::append && target.kind == OutputKind::replace) flags |= O_CREAT;
  fd_ = ::open(target.target.c_str(), flags, 0666);
  if (fd_ < 0) fail("open", errno);
  struct stat st {};
  regular_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : target_(std::move(other.target_)),
      temporary_(std::move(other.temporary_)),
      fd_(std::exchange(other.fd_, -1)),
      regular_(other.regular_),
      committed_(other.committed_),
      buffer_(std::move(other.buffer_)) {
  other.temporary_.clear();
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temporary_.empty() && !committed_) ::unlink(temporary_.c_str());
}

void OutputFile::fail(const char* doing, int error) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
  temporary_.clear();
  throw InputError(target_.name() + ": cannot " + doing + ": " + std::strerror(error != 0 ? error : EIO));
}

void OutputFile::write(std::string_view text) {
  if (fd_ < 0) fail("write after close", EBADF);
  if (buffer_.size() + text.size() > buffer_bytes) flush();
  if (text.size() > buffer_bytes) {
    write_all(text);  // a large piece goes out as it is, not through the buffer
  } else {
    buffer_.append(text);
  }
}

void OutputFile::flush() {
  if (fd_ < 0) fail("write after close", EBADF);
  write_all(buffer_);
  buffer_.clear();
}

void OutputFile::write_all(std::string_view text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write", n < 0 ? errno : EIO);
    done += size_t(n);
  }
}

void OutputFile::finish() {
  if (fd_ < 0) return;
  flush();
  if (regular_ && ::fsync(fd_) != 0) fail("write (fsync)", errno);
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) fail("write (close)", errno);
}

void OutputFile::commit() {
  finish();
  if (temporary_.empty() || committed_) return;
  if (::rename(temporary_.c_str(), target_.target.c_str()) != 0) fail("rename its temporary file over it", errno);
  committed_ = true;
}

void write_outputs(const std::vector<OutputJob>& jobs) {
  std::vector<OutputFile> written;
  for (const OutputKind kind : {OutputKind::replace, OutputKind::in_place})
    for (const OutputJob& job : jobs) {
      if (job.target.kind != kind) continue;
      OutputFile file(job.target);
      job.write(file);
      file.finish();
      written.push_back(std::move(file));
    }
  for (OutputFile& file : written) file.commit();
}

void write_text_output(const std::string& option, const std::string& path, std::string_view text) {
  write_outputs({{check_output_path(option, path), [text](OutputFile& out) { out.write(text); }}});
}

}  // namespace tiledqr
