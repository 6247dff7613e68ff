// provenance_line and refuse_overwrite; see provenance.hpp.
#include "provenance.hpp"

#include <sys/stat.h>

#include "errors.hpp"
#include "version.hpp"

namespace tiledqr::bench {

std::string provenance_line(const std::string& gpu) {
  return "# built from tiledqr " + std::string(project_version()) + " commit " + build_commit() + "; " +
         openblas_version() + "; " + gpu;
}

void refuse_overwrite(const std::string& path, bool resume, bool force) {
  // Only a regular file (or a link to one) holds results to lose; a device
  // or FIFO is written in place (output_file.hpp).
  struct stat info {};
  if (resume || force || ::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return;
  throw InputError("'" + path + "' exists: pass --resume to add the missing cases to it, or --force to replace it");
}

}  // namespace tiledqr::bench
