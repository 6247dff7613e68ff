// Names of the task kinds, backends and trees, and their parsing from text; see task.hpp.
#include "task.hpp"

#include <utility>

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

Backend parse_backend(const std::string& text) {
  if (text == "lapack") return Backend::lapack;
  if (text == "reference") return Backend::reference;
  throw InputError("unknown backend '" + text + "' (expected reference or lapack)");
}

// Each tree and its name on the command line.
constexpr std::pair<Tree, const char*> kTreeNames[] = {
    {Tree::flat, "flat"},
    {Tree::binary, "binary"},
    {Tree::greedy, "greedy"},
    {Tree::hierarchical, "hierarchical"},
    {Tree::tsqr, "tsqr"}};

const char* tree_name(Tree tree) {
  for (const auto& [value, name] : kTreeNames)
    if (value == tree) return name;
  return "unknown";
}

Tree parse_tree(const std::string& text) {
  for (const auto& [value, name] : kTreeNames)
    if (text == name) return value;
  throw InputError("unknown tree '" + text + "' (expected flat, binary, greedy, hierarchical or tsqr)");
}

}  // namespace tiledqr
