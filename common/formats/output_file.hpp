// Output files written safely: checked before any work, written to a unique
// temporary in the destination's folder and renamed in only when complete,
// every write, flush and close checked, several outputs all or none.
//
// What happens to a destination depends on its file type; a symbolic link
// is followed to its final target, which is the file written (the link is
// kept):
//   absent or a regular file   written to "<name>.XXXXXX.tmp" (mkstemp) in
//                              the same folder, fsync'ed, then renamed over
//                              the destination, so readers and concurrent
//                              runs only ever see one whole file;
//   character or block device, opened and written where it is (never
//   FIFO, or a path under /proc  replaced by a regular file);
//   directory or socket         refused.
// A run killed while writing may leave its "<name>.XXXXXX.tmp" behind; every
// failure that the program sees removes it.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tiledqr {

enum class OutputKind {
  none,      // no path given
  replace,   // temporary file, then rename
  in_place,  // opened and written where it is
};

// A destination after check_output_path: where the bytes go and how.
struct OutputTarget {
  std::string option;    // the option that named it, e.g. "--output-r" ("" for a library call)
  std::string path;      // as given
  std::string target;    // the file written: `path` with symbolic links followed
  OutputKind kind = OutputKind::none;
  std::string identity;  // equal for two targets that are the same file

  bool requested() const { return kind != OutputKind::none; }
  // "--output-r r.mtx", or the path alone without an option; for messages.
  std::string name() const;
};

// Resolves `path` and checks, without writing it, that it can be written:
// for `replace`, that its folder exists and accepts a new file (a temporary
// is created and removed at once) and that an existing file is writable; for
// `in_place`, that the file is writable. Throws InputError naming `option`,
// `path` and the reason. Takes microseconds, so a program calls it before
// reading input or computing. An empty `path` gives a target of kind none.
OutputTarget check_output_path(const std::string& option, const std::string& path);

// Throws InputError when two of `targets` are the same file (a character
// device such as /dev/null may be named more than once).
void check_distinct_outputs(const std::vector<OutputTarget>& targets);

// One output being written. Text is buffered and written with checked
// write(2) calls; any failure throws InputError with the errno text and the
// temporary (if any) is removed when the object is destroyed uncommitted.
class OutputFile {
 public:
  // replace: new text goes to a fresh temporary that commit() renames in.
  // append: text is appended to the destination itself (created if
  // absent), for logs that must keep every finished row.
  enum class Mode { replace, append };

  explicit OutputFile(const OutputTarget& target, Mode mode = Mode::replace);
  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  void write(std::string_view text);
  // Writes the buffered text to the file (not to the disk).
  void flush();
  // Flushes, fsyncs a regular file and closes it; the temporary stays.
  void finish();
  // finish(), then renames the temporary over the destination.
  void commit();

  std::string name() const { return target_.name(); }

 private:
  [[noreturn]] void fail(const char* doing, int error);
  // Writes all of `text` to fd_ with checked write(2) calls.
  void write_all(std::string_view text);

  OutputTarget target_;
  std::string temporary_;  // empty when written in place or appended to
  int fd_ = -1;
  bool regular_ = false;   // fsync it (devices and FIFOs cannot be)
  bool committed_ = false;
  std::string buffer_;
};

// One output of a set: its checked target and what writes its contents.
struct OutputJob {
  OutputTarget target;
  std::function<void(OutputFile&)> write;
};

// Writes every requested output all or none: first each `replace` output to
// its temporary (complete and fsync'ed), then each `in_place` one, then
// renames the temporaries in. On any failure it removes the temporaries and
// throws InputError before any destination is replaced (a device or FIFO
// written before the failure keeps what it received).
void write_outputs(const std::vector<OutputJob>& jobs);

// One text output, checked and written as above:
//   write_text_output("--traceback", path, text + "\n");
void write_text_output(const std::string& option, const std::string& path, std::string_view text);

}  // namespace tiledqr
