#include "task.hpp"

#include "errors.hpp"
#include "options.hpp"

namespace tiledqr {

const char* task_kind_name(TaskKind kind) {
  switch (kind) {
    case TaskKind::geqrt: return "geqrt";
    case TaskKind::ormqr: return "ormqr";
    case TaskKind::tsqrt: return "tsqrt";
    case TaskKind::tsmqr: return "tsmqr";
    case TaskKind::ttqrt: return "ttqrt";
    case TaskKind::ttmqr: return "ttmqr";
  }
  return "unknown";
}

const char* backend_name(Backend backend) {
  return backend == Backend::lapack ? "lapack" : "reference";
}

const char* tree_name(Tree tree) {
  switch (tree) {
    case Tree::flat: return "flat";
    case Tree::binary: return "binary";
    case Tree::greedy: return "greedy";
    case Tree::hierarchical: return "hierarchical";
  }
  return "unknown";
}

Backend parse_backend(const std::string& text) {
  if (text == "lapack") return Backend::lapack;
  if (text == "reference") return Backend::reference;
  throw InputError("unknown backend '" + text + "' (expected reference or lapack)");
}

Tree parse_tree(const std::string& text) {
  if (text == "flat") return Tree::flat;
  if (text == "binary") return Tree::binary;
  if (text == "greedy") return Tree::greedy;
  if (text == "hierarchical") return Tree::hierarchical;
  throw InputError("unknown tree '" + text + "' (expected flat, binary, greedy or hierarchical)");
}

}  // namespace tiledqr
