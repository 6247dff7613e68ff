// The ready/finished queue of FR3 (fr3_gpu/task_queue.hpp) on CPU threads:
// the same header the GPU scheduler uses, compiled for the host.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
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

// Checks what a consumer saw: every item each producer pushed exactly
// once, and each producer's items in the order it pushed them (FIFO).
void expect_each_once_in_order(const std::vector<uint64_t>& taken,
                               const std::vector<uint64_t>& pushed) {
  std::vector<uint64_t> next(kProducers, 0);
  for (const uint64_t item : taken) {
    const int producer = int(item >> 40);
    const uint64_t sequence = item & ((uint64_t(1) << 40) - 1);
    ASSERT_LT(producer, kProducers);
    ASSERT_EQ(sequence, next[producer]) << "producer " << producer << " out of order or repeated";
    ++next[producer];
  }
  for (int p = 0; p < kProducers; ++p) EXPECT_EQ(next[p], pushed[p]) << "producer " << p;
}

// The queue's words as text, for a failure message (read atomically: a
// stuck producer may still be running).
std::string describe(HostQueue& q) {
  const auto read = [](uint64_t& word) {
    return TaskQueue::Atomic(word).load(cuda::memory_order_relaxed);
  };
  std::ostringstream text;
  text << "head " << read(q.head) << ", tail " << read(q.tail) << ", slots:";
  for (uint64_t& slot : q.slots) {
    const uint64_t word = read(slot);
    if (TaskQueue::is_item(word))
      text << " item(" << (word >> 40) << ':' << (word & ((uint64_t(1) << 40) - 1)) << ')';
    else
      text << " empty(lap " << (word & ~TaskQueue::empty_flag) << ')';
  }
  return text.str();
}

// How long the producers may push, and how long the consumer then has to
// take what they pushed. Alone the 700000 items of a hammer pass in well
// under a second, but on cores that other processes keep busy a yield can
// give up a whole time slice and the same hammer moves a few thousand items
// a second (minutes in all). So a hammer stops its producers when the push
// time is up and checks every item they pushed by then; a consumer that
// cannot take them all in the drain time fails the test, with the queue's
// state, instead of hanging. Three hammers fit in meson's 120 s either way.
constexpr std::chrono::seconds kPushTime{20};
constexpr std::chrono::seconds kDrainTime{10};

// A producer's push: `hint` is its own, starting at 0, for try_push(item, hint).
using PushFn = std::function<bool(uint64_t item, uint64_t& hint)>;
// The consumer's step: appends what it took to `taken`; false when it took nothing.
using TakeFn = std::function<bool(std::vector<uint64_t>& taken)>;

// Runs kProducers threads pushing up to `per_producer` items each, with
// `push`, and one consumer thread calling `take`; then checks that every
// pushed item arrived exactly once and in its producer's order, that no
// item is left over, and that the ring still takes and returns a full lap
// (no slot left in a state nobody can advance).
void hammer(HostQueue& q, uint64_t per_producer, const PushFn& push, const TakeFn& take) {
  using Clock = std::chrono::steady_clock;
  const uint64_t unknown = ~uint64_t(0);
  std::atomic<bool> stop{false};          // producers: push no more
  std::atomic<int> producing{kProducers};
  std::vector<std::atomic<uint64_t>> pushed(kProducers);  // items each producer pushed
  std::atomic<uint64_t> expected{unknown};  // the consumer's total, once producers are done
  std::atomic<bool> give_up{false};        // consumer: stop waiting for items
  std::atomic<bool> consumed{false};
  std::vector<uint64_t> taken;
  taken.reserve(per_producer * kProducers);

  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    pushed[p].store(0, std::memory_order_relaxed);
    producers.emplace_back([&, p] {
      uint64_t hint = 0;
      for (uint64_t s = 0; s < per_producer; ++s) {
        bool in = push(item_of(p, s), hint);
        while (!in && !stop.load(std::memory_order_relaxed)) {
          std::this_thread::yield();
          in = push(item_of(p, s), hint);
        }
        // A failed push leaves nothing in the queue: an item given up on
        // when time is up is not counted.
        if (!in) break;
        pushed[p].store(s + 1, std::memory_order_relaxed);
        if (stop.load(std::memory_order_relaxed)) break;
      }
      producing.fetch_sub(1, std::memory_order_release);
    });
  }
  std::thread consumer([&] {
    while (taken.size() != expected.load(std::memory_order_acquire) &&
           !give_up.load(std::memory_order_relaxed))
      if (!take(taken)) std::this_thread::yield();
    consumed.store(true, std::memory_order_release);
  });

  const Clock::time_point start = Clock::now();
  while (producing.load(std::memory_order_acquire) > 0 && Clock::now() - start < kPushTime)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  stop.store(true, std::memory_order_relaxed);
  // Producers look at `stop` between pushes; one that is not back within
  // kDrainTime spins inside try_push, which no flag can end: report the
  // queue and abort rather than wait for it.
  const Clock::time_point stopped = Clock::now();
  while (producing.load(std::memory_order_acquire) > 0 && Clock::now() - stopped < kDrainTime)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (producing.load(std::memory_order_acquire) > 0) {
    std::fprintf(stderr, "%d producers still inside try_push %lld s after time was up: %s\n",
                 producing.load(), static_cast<long long>(kDrainTime.count()),
                 describe(q).c_str());
    std::fflush(stderr);
    std::abort();
  }
  for (std::thread& t : producers) t.join();
  std::vector<uint64_t> counts(kProducers);
  uint64_t total = 0;
  for (int p = 0; p < kProducers; ++p) total += counts[p] = pushed[p].load();
  expected.store(total, std::memory_order_release);
  const Clock::time_point joined = Clock::now();
  while (!consumed.load(std::memory_order_acquire) && Clock::now() - joined < kDrainTime)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  give_up.store(true, std::memory_order_relaxed);
  consumer.join();

  if (total < per_producer * kProducers)
    std::printf("note: the producers pushed %llu of %llu items in %lld s (busy cores); "
                "those are checked\n",
                static_cast<unsigned long long>(total),
                static_cast<unsigned long long>(per_producer * kProducers),
                static_cast<long long>(kPushTime.count()));
  // Far fewer than the slowest rate seen beside busy processes would give:
  // fewer means the producers were stuck, not slow.
  EXPECT_GE(total, 100 * q.queue.capacity()) << "the ring barely lapped: " << describe(q);
  ASSERT_EQ(taken.size(), total) << "the consumer took " << taken.size() << " of the " << total
                                 << " items pushed and then waited " << kDrainTime.count()
                                 << " s in vain: " << describe(q);
  expect_each_once_in_order(taken, counts);
  uint64_t item = 0;
  EXPECT_FALSE(q.queue.try_pop(item)) << "an item appeared twice: " << describe(q);
  // The drained ring still fills to capacity, reports full, and returns a lap in order.
  for (uint64_t i = 0; i < q.queue.capacity(); ++i)
    ASSERT_TRUE(q.queue.try_push(i)) << "slot " << i << " of the drained ring: " << describe(q);
  EXPECT_FALSE(q.queue.try_push(q.queue.capacity())) << describe(q);
  for (uint64_t i = 0; i < q.queue.capacity(); ++i) {
    ASSERT_TRUE(q.queue.try_pop(item)) << describe(q);
    EXPECT_EQ(item, i);
  }
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
// time; every item arrives exactly once and each producer's in order (on
// busy cores: every item pushed in kPushTime, see hammer).
TEST(TaskQueueHost, HammerSevenProducersOneConsumer) {
  HostQueue q(4);
  hammer(
      q, 100000, [&](uint64_t item, uint64_t&) { return q.queue.try_push(item); },
      [&](std::vector<uint64_t>& taken) {
        uint64_t item = 0;
        if (!q.queue.try_pop(item)) return false;
        taken.push_back(item);
        return true;
      });
}

// Pass rule: as above, with each producer starting its pushes where its
// own last one ended (the position hint the GPU scheduler keeps per ready
// queue; here seven stale hints race): every item exactly once, in order.
TEST(TaskQueueHost, HammerProducersWithOwnHints) {
  HostQueue q(4);
  hammer(
      q, 100000, [&](uint64_t item, uint64_t& hint) { return q.queue.try_push(item, hint); },
      [&](std::vector<uint64_t>& taken) {
        uint64_t item = 0;
        if (!q.queue.try_pop(item)) return false;
        taken.push_back(item);
        return true;
      });
}

// Pass rule: as above, but the consumer reads ahead of head as the GPU
// scheduler warp does (peek up to 32 positions, take the leading run,
// clear those slots, then move head once); every item exactly once, in order.
TEST(TaskQueueHost, HammerBatchedConsumer) {
  HostQueue q(6);
  uint64_t head = q.queue.read_head();  // the consumer's own copy
  hammer(
      q, 100000, [&](uint64_t item, uint64_t&) { return q.queue.try_push(item); },
      [&](std::vector<uint64_t>& taken) {
        uint64_t run = 0, item = 0;
        while (run < 32 && q.queue.peek(head + run, item)) {
          taken.push_back(item);
          ++run;
        }
        for (uint64_t r = 0; r < run; ++r) q.queue.clear_slot(head + r);
        head += run;
        if (run) q.queue.set_head(head);
        return run > 0;
      });
}

}  // namespace
}  // namespace tiledqr::gpu
