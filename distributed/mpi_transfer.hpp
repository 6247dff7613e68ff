// Plain MPI point-to-point transfers of host arrays of any length, for the
// gathers to rank 0 that follow a factorisation (outside StarPU-MPI, whose
// blocking send and receive race with its progress thread in 1.3).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstddef>

namespace tiledqr::distributed {

template <typename T>
MPI_Datatype mpi_type() {
  static_assert(sizeof(T) == 8 || sizeof(T) == 4, "double or float");
  return sizeof(T) == 8 ? MPI_DOUBLE : MPI_FLOAT;
}

// `count` elements in pieces of at most INT_MAX (MPI counts are ints).
template <typename T>
void send_all(const T* data, size_t count, int to, int tag, MPI_Comm comm) {
  do {
    const int piece = int(std::min<size_t>(count, INT_MAX));
    MPI_Send(data, piece, mpi_type<T>(), to, tag, comm);
    data += piece;
    count -= size_t(piece);
  } while (count > 0);
}

template <typename T>
void receive_all(T* data, size_t count, int from, int tag, MPI_Comm comm) {
  do {
    const int piece = int(std::min<size_t>(count, INT_MAX));
    MPI_Recv(data, piece, mpi_type<T>(), from, tag, comm, MPI_STATUS_IGNORE);
    data += piece;
    count -= size_t(piece);
  } while (count > 0);
}

}  // namespace tiledqr::distributed
