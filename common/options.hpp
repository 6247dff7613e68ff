// Options shared by every stage (docs/design.md §6, §7).
#pragma once

#include <string>

namespace tiledqr {

enum class Backend { reference, lapack };
// hierarchical: the panel's tile rows fall into `tree_domains` domains
// (tile row i in domain i mod tree_domains: one process row of a 2-D
// block-cyclic distribution); each domain is reduced by `inner_tree` (flat
// or binary), then the domains' top rows by a binary tree.
enum class Tree { flat, binary, greedy, hierarchical };

struct Options {
  int tile = 32;              // b: tile size
  int inner_block = 0;        // ib of the lapack backend's T factors; 0 picks min(tile, 32)
  Backend backend = Backend::lapack;
  Tree tree = Tree::flat;
  int tree_domains = 1;         // hierarchical tree: number of domains
  Tree inner_tree = Tree::flat;  // hierarchical tree: flat or binary inside a domain
  int threads = 0;            // FR2 workers; 0 means every hardware thread
  bool trace = false;         // record one TaskRecord per task

  int effective_inner_block() const {
    const int ib = inner_block > 0 ? inner_block : 32;
    return ib < tile ? ib : tile;
  }
};

const char* backend_name(Backend backend);
const char* tree_name(Tree tree);
Backend parse_backend(const std::string& text);  // throws InputError
Tree parse_tree(const std::string& text);        // throws InputError

}  // namespace tiledqr
