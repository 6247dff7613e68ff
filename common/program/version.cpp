// Version text of the stage programs and the benchmark driver; the values come from
// version_info.cpp, generated at build time.
#include "version.hpp"

#include <cblas.h>

namespace tiledqr {
namespace detail {
extern const char kProjectVersion[];
extern const char kBuildCommit[];
}  // namespace detail

const char* project_version() { return detail::kProjectVersion; }

const char* build_commit() { return detail::kBuildCommit; }

std::string openblas_version() {
  std::string text = openblas_get_config();
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

std::string version_text(const std::string& program, const std::string& extra) {
  std::string text = program + " (tiledqr) " + project_version() + "\n";
  text += "commit   " + std::string(build_commit()) + "\n";
  const std::string blas = openblas_version();
  text += (blas.rfind("OpenBLAS", 0) == 0 ? "" : "OpenBLAS ") + blas + "\n";
  if (!extra.empty()) text += extra;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

}  // namespace tiledqr
