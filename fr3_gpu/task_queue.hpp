// A bounded, non-blocking FIFO of 63-bit words between the GPU scheduler warp
// and its executors ("Task-Based Scheduling Implementing Tiled Linear Algebra
// on GPUs", §II.D item 3, after Tsigas & Zhang 2001, "A simple, fast and
// scalable non-blocking concurrent FIFO queue"): a ring of slots, each either
// an item or an empty marker, with head and tail positions that only grow.
//
// As in Tsigas & Zhang, a producer publishes an item with one
// compare-and-swap on the slot itself, from "empty" to the item, so an item
// is never half written; tail is a hint that any producer may move past a
// filled slot, and a producer that finds a slot filled moves on to the next. Their two alternating null values become empty markers that
// carry the ring lap of the position they wait for, so a producer that
// read a slot one lap ago can never fill it now (no ABA).
//
// Any number of producers; ONE consumer per queue (each executor owns its
// ready queue, the scheduler warp the finished queue), which is what lets
// the consumer read ahead of head (peek) and retire several items at once.
//
// The same code runs on the host (tested with std::threads in CI) and on
// the device: every shared word goes through
// cuda::atomic_ref<uint64_t, cuda::thread_scope_device> with an explicit
// memory order. An item's push is a release and its peek an acquire, so
// whatever the producer wrote before pushing (a tile, a task) is visible to
// the consumer after it takes the item.
#pragma once

#include <cuda/atomic>

#include <cstdint>

#include "host_device.hpp"

namespace tiledqr::gpu {

struct TaskQueue {
  using Word = uint64_t;
  using Atomic = cuda::atomic_ref<Word, cuda::thread_scope_device>;

  static constexpr Word empty_flag = Word(1) << 63;  // set in empty markers, clear in items

  Word* slots = nullptr;  // (capacity): items or empty markers
  Word* head = nullptr;   // next position the consumer takes; written by the consumer only
  Word* tail = nullptr;   // hint: every position below it is filled
  int capacity_log2 = 0;  // capacity = 2^capacity_log2

  TILEDQR_HOST_DEVICE Word capacity() const { return Word(1) << capacity_log2; }
  TILEDQR_HOST_DEVICE static bool is_item(Word word) { return (word & empty_flag) == 0; }

  // The marker of a slot waiting for `position` (its lap is position / capacity).
  // A fresh queue holds empty_marker(s) in slot s and head = tail = 0.
  TILEDQR_HOST_DEVICE Word empty_marker(Word position) const {
    return empty_flag | (position >> capacity_log2);
  }

  // Appends `item` (< 2^63). False when the queue is full; any thread may call it.
  TILEDQR_HOST_DEVICE bool try_push(Word item) const {
    Word position = Atomic(*tail).load(cuda::memory_order_relaxed);
    return try_push(item, position);
  }

  // The same, starting at `position`, a guess of the tail that no filled
  // position follows (the tail itself, or where this producer's last push
  // ended: a single producer keeping it pushes with one compare-and-swap).
  // On success `position` is just past the item.
  TILEDQR_HOST_DEVICE bool try_push(Word item, Word& position) const {
    // Every position below taken + capacity belongs to the current lap.
    Word taken = Atomic(*head).load(cuda::memory_order_acquire);
    for (;;) {
      Atomic slot(slots[position & (capacity() - 1)]);
      Word word = empty_marker(position);
      if (slot.compare_exchange_strong(word, item, cuda::memory_order_release,
                                       cuda::memory_order_acquire)) {
        advance_tail(position);
        ++position;
        return true;
      }
      // `word` is what the slot holds instead.
      if (is_item(word)) {
        if (int64_t(position - taken) >= int64_t(capacity())) {
          // Perhaps the item a lap before: the ring is full unless head moved.
          taken = Atomic(*head).load(cuda::memory_order_acquire);
          if (int64_t(position - taken) >= int64_t(capacity())) return false;
          continue;
        }
        // Another producer filled position: go on to the next one, as Tsigas
        // and Zhang's enqueue walks from the tail to the first empty slot.
        advance_tail(position);
        ++position;
      } else if ((word & ~empty_flag) > (position >> capacity_log2)) {
        // Filled and taken already: the guess is behind; catch up with the tail.
        const Word hinted = Atomic(*tail).load(cuda::memory_order_relaxed);
        position = hinted > position ? hinted : position + 1;
      } else {
        // Waiting for an earlier lap: the guess ran ahead of the ring.
        position = Atomic(*tail).load(cuda::memory_order_relaxed);
      }
    }
  }

  // The consumer side. The consumer is head's only writer, so it keeps its
  // own copy (read once with read_head) and names positions itself.

  // Consumer only: head as stored.
  TILEDQR_HOST_DEVICE Word read_head() const {
    return Atomic(*head).load(cuda::memory_order_relaxed);
  }

  // Consumer only. The item at `position` (head ≤ position < head +
  // capacity), if it has been pushed. Items fill positions in order, but a
  // peek may see a later one before an earlier one: use the leading run.
  // A relaxed peek followed, once it found something, by an acquire fence
  // (cuda::atomic_thread_fence) is an acquire too, and cheaper to spin on.
  TILEDQR_HOST_DEVICE bool peek(Word position, Word& item,
                                cuda::memory_order order = cuda::memory_order_acquire) const {
    const Word word = Atomic(slots[position & (capacity() - 1)]).load(order);
    if (!is_item(word)) return false;
    item = word;
    return true;
  }

  // Consumer only: empties the slot of `position` (peeked before), making it
  // wait for the same position one lap on. Published by set_head.
  TILEDQR_HOST_DEVICE void clear_slot(Word position) const {
    Atomic(slots[position & (capacity() - 1)])
        .store(empty_marker(position + capacity()), cuda::memory_order_relaxed);
  }

  // Consumer only: head = new_head, after clearing the slots below it
  // (release: a producer that sees the new head sees them empty).
  TILEDQR_HOST_DEVICE void set_head(Word new_head) const {
    Atomic(*head).store(new_head, cuda::memory_order_release);
  }

  // Consumer only: takes the first item, if any.
  TILEDQR_HOST_DEVICE bool try_pop(Word& item) const {
    const Word position = read_head();
    if (!peek(position, item)) return false;
    clear_slot(position);
    set_head(position + 1);
    return true;
  }

 private:
  // tail is only a hint (the slots carry the truth), so relaxed suffices.
  TILEDQR_HOST_DEVICE void advance_tail(Word filled_position) const {
    Word expected = filled_position;
    Atomic(*tail).compare_exchange_strong(expected, filled_position + 1, cuda::memory_order_relaxed,
                                          cuda::memory_order_relaxed);
  }
};

}  // namespace tiledqr::gpu
