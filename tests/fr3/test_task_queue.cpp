// The ready/finished queue of FR3 (fr3_gpu/task_queue.hpp) on CPU threads:
// the same header the GPU scheduler uses, compiled for the host.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "task_queue.hpp"

namespace tiledqr::gpu {
namespace {

// A queue and the memory it points into, laid out as on the device.
struct HostQueue {
  explicit HostQueue(int capacity_log2) : slots(size_t(1) << capacity_log2) {
    queue.slots = slots.data();
    queue.head = &head;
    queue.tail = &tail;
    queue.capacity_log2 = capacity_log2;
    for (size_t s = 0; s < slots.size(); ++s) slots[s] = queue.empty_marker(s);
  }
  std::vector<uint64_t> slots;
  alignas(128) uint64_t head = 0;
  alignas(128) uint64_t tail = 0;
  TaskQueue queue;
};

constexpr int kThreads = 8;  // 7 producers and the consumer
constexpr int kProducers = kThreads - 1;

uint64_t item_of(int producer, uint64_t sequence) { return (uint64_t(producer) << 40) | sequence; }

// Checks what a consumer saw: every item of every producer exactly once,
// and each producer's items in the order it pushed them (FIFO).
void expect_each_once_in_order(const std::vector<uint64_t>& taken, uint64_t per_producer) {
  std::vector<uint64_t> next(kProducers, 0);
  for (const uint64_t item : taken) {
    const int producer = int(item >> 40);
    const uint64_t sequence = item & ((uint64_t(1) << 40) - 1);
    ASSERT_LT(producer, kProducers);
    ASSERT_EQ(sequence, next[producer]) << "producer " << producer << " out of order or repeated";
    ++next[producer];
  }
  for (int p = 0; p < kProducers; ++p) EXPECT_EQ(next[p], per_producer) << "producer " << p;
}

// Pass rule: with capacity 4, four pushes succeed and the fifth reports
// full; pops return items in push order; over 1000 laps nothing is lost.
TEST(TaskQueueHost, FullEmptyAndLaps) {
  HostQueue q(2);
  uint64_t item = 0;
  EXPECT_FALSE(q.queue.try_pop(item));
  for (uint64_t i = 0; i < 4; ++i) EXPECT_TRUE(q.queue.try_push(100 + i));
  EXPECT_FALSE(q.queue.try_push(999));
  for (uint64_t i = 0; i < 4; ++i) {
    ASSERT_TRUE(q.queue.try_pop(item));
    EXPECT_EQ(item, 100 + i);
  }
  EXPECT_FALSE(q.queue.try_pop(item));
  for (uint64_t i = 0; i < 4000; ++i) {
    ASSERT_TRUE(q.queue.try_push(i));
    if (i % 3 == 2) {  // the ring keeps between 1 and 3 items while it laps
      for (int k = 0; k < 3; ++k) ASSERT_TRUE(q.queue.try_pop(item));
    }
  }
  uint64_t count = 0;
  while (q.queue.try_pop(item)) ++count;
  EXPECT_EQ(count, 4000u - 3 * (4000u / 3));
}

// Pass rule: 7 producer threads push 100000 items each through a 16-slot
// ring (full most of the time) to one consumer thread popping one at a
// time; every item arrives exactly once and each producer's in order.
TEST(TaskQueueHost, HammerSevenProducersOneConsumer) {
  const uint64_t per_producer = 100000;
  HostQueue q(4);
  std::vector<uint64_t> taken;
  taken.reserve(per_producer * kProducers);
  std::vector<std::thread> threads;
  for (int p = 0; p < kProducers; ++p)
    threads.emplace_back([&, p] {
      for (uint64_t s = 0; s < per_producer; ++s)
        while (!q.queue.try_push(item_of(p, s))) std::this_thread::yield();
    });
  threads.emplace_back([&] {
    uint64_t item = 0;
    while (taken.size() < per_producer * kProducers)
      if (q.queue.try_pop(item)) taken.push_back(item);
      else std::this_thread::yield();
  });
  for (std::thread& t : threads) t.join();
  expect_each_once_in_order(taken, per_producer);
  uint64_t extra = 0;
  EXPECT_FALSE(q.queue.try_pop(extra)) << "an item appeared twice";
}

// Pass rule: as above, with each producer starting its pushes where its
// own last one ended (the position hint the GPU scheduler keeps per ready
// queue; here seven stale hints race): every item exactly once, in order.
TEST(TaskQueueHost, HammerProducersWithOwnHints) {
  const uint64_t per_producer = 100000;
  HostQueue q(4);
  std::vector<uint64_t> taken;
  taken.reserve(per_producer * kProducers);
  std::vector<std::thread> threads;
  for (int p = 0; p < kProducers; ++p)
    threads.emplace_back([&, p] {
      uint64_t hint = 0;
      for (uint64_t s = 0; s < per_producer; ++s)
        while (!q.queue.try_push(item_of(p, s), hint)) std::this_thread::yield();
    });
  threads.emplace_back([&] {
    uint64_t item = 0;
    while (taken.size() < per_producer * kProducers)
      if (q.queue.try_pop(item)) taken.push_back(item);
      else std::this_thread::yield();
  });
  for (std::thread& t : threads) t.join();
  expect_each_once_in_order(taken, per_producer);
}

// Pass rule: as above, but the consumer reads ahead of head as the GPU
// scheduler warp does (peek up to 32 positions, take the leading run,
// clear those slots, then move head once); every item exactly once, in order.
TEST(TaskQueueHost, HammerBatchedConsumer) {
  const uint64_t per_producer = 100000;
  HostQueue q(6);
  std::vector<uint64_t> taken;
  taken.reserve(per_producer * kProducers);
  std::vector<std::thread> threads;
  for (int p = 0; p < kProducers; ++p)
    threads.emplace_back([&, p] {
      for (uint64_t s = 0; s < per_producer; ++s)
        while (!q.queue.try_push(item_of(p, s))) std::this_thread::yield();
    });
  threads.emplace_back([&] {
    uint64_t head = q.queue.read_head();
    while (taken.size() < per_producer * kProducers) {
      uint64_t run = 0, item = 0;
      while (run < 32 && q.queue.peek(head + run, item)) {
        taken.push_back(item);
        ++run;
      }
      for (uint64_t r = 0; r < run; ++r) q.queue.clear_slot(head + r);
      head += run;
      if (run) q.queue.set_head(head);
      else std::this_thread::yield();
    }
  });
  for (std::thread& t : threads) t.join();
  expect_each_once_in_order(taken, per_producer);
}

}  // namespace
}  // namespace tiledqr::gpu
