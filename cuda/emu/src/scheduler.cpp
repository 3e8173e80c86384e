// The emulator's execution model (cuda/README.md, "The emulator").
//
// A launch runs its blocks one after another (in the schedule's block order),
// and a block's threads as fibers (Boost.Context's fiber: a context switch is
// a few register saves, no system call, unlike ucontext's swapcontext, and
// Debian packages it). A thread runs until it reaches __syncthreads or a warp
// collective, where it waits until every thread of the block (every lane of
// the mask) is there; the scheduler then resumes the next ready thread in the
// schedule's order. A block ends when all its threads have returned. When no
// thread is ready and some have not returned, the block can never finish: a
// thread exited or waits at another barrier, or a lane named in a mask never
// calls the collective; the launch fails saying which.
//
// Each launch runs under every schedule of options().schedules from the same
// inputs (the memory its arguments reach is saved before and restored between
// schedules) and must leave that memory bitwise the same under each.
//
// Thread-block clusters (launch.hpp's launch_cluster_kernel): the blocks of
// one cluster run together, one at a time (in rank order, reversed, or
// shuffled, as the schedule visits blocks), each until every one of its
// threads waits at the cluster barrier (cluster_sync) or has returned; the
// block is then parked (checks.cpp keeps its shared memory apart, where the
// other blocks' cluster_peer reach it) and the next one runs. Once every
// block waits, the barrier opens. A block that returns while the others wait,
// or threads at different cluster barriers, fail the launch. In a launch
// without clusters, cluster_sync is a barrier of the block alone (a cluster
// of one block, as on the GPU).
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <scaleref/emu/launch.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "internal.hpp"

namespace scaleref::emu {

namespace ctx = boost::context;

std::string Schedule::name() const {
  switch (kind) {
    case in_order:
      return "in-order";
    case reversed:
      return "reversed";
    case random:
      return "random:" + std::to_string(seed);
    case warp_ahead:
      return "warp-ahead:" + std::to_string(seed);
    case warp_behind:
      return "warp-behind:" + std::to_string(seed);
    case thread_ahead:
      return "thread-ahead:" + std::to_string(seed);
    case thread_behind:
      return "thread-behind:" + std::to_string(seed);
  }
  return "?";
}

Schedule parse_schedule(std::string_view text) {
  if (text == "in-order") return {Schedule::in_order, 0};
  if (text == "reversed") return {Schedule::reversed, 0};
  const auto number = [](std::string_view digits, std::uint64_t& out) {
    if (digits.empty() || digits.size() > 19 ||
        digits.find_first_not_of("0123456789") != std::string_view::npos)
      return false;
    out = std::stoull(std::string(digits));
    return true;
  };
  std::uint64_t n = 0;
  if (text.substr(0, 7) == "random:" && number(text.substr(7), n)) return {Schedule::random, n};
  for (const auto& [prefix, kind] :
       {std::pair{std::string_view("warp-ahead"), Schedule::warp_ahead},
        std::pair{std::string_view("warp-behind"), Schedule::warp_behind},
        std::pair{std::string_view("thread-ahead"), Schedule::thread_ahead},
        std::pair{std::string_view("thread-behind"), Schedule::thread_behind}}) {
    if (text == prefix) return {kind, 0};
    if (text.substr(0, prefix.size()) == prefix && text.size() > prefix.size() &&
        text[prefix.size()] == ':' && number(text.substr(prefix.size() + 1), n))
      return {kind, n};
  }
  throw std::invalid_argument("scaleref emulator: unknown schedule '" + std::string(text) +
                              "' (expected in-order, reversed, random:SEED, warp-ahead[:W], "
                              "warp-behind[:W], thread-ahead[:T] or thread-behind[:T])");
}

namespace {

Options read_environment() {
  Options o;
  if (const char* s = std::getenv("SCALEREF_EMU_SCHEDULES"); s && *s) {
    o.schedules.clear();
    std::string_view rest = s;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      o.schedules.push_back(parse_schedule(rest.substr(0, comma)));
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
  }
  if (const char* g = std::getenv("SCALEREF_EMU_MAX_GRID_X"); g && *g) {
    char* end = nullptr;
    const unsigned long v = std::strtoul(g, &end, 10);
    if (*end != '\0' || v < 1 || v > 2147483647ul)
      throw std::invalid_argument(std::string("scaleref emulator: SCALEREF_EMU_MAX_GRID_X='") + g +
                                  "' is not an integer in [1, 2^31 - 1]");
    o.max_grid_x = static_cast<unsigned>(v);
  }
  if (const char* c = std::getenv("SCALEREF_EMU_CHECK"); c && *c) {
    const std::string_view v = c;
    if (v != "race" && v != "default" && v != "none")
      throw std::invalid_argument(std::string("scaleref emulator: SCALEREF_EMU_CHECK='") + c +
                                  "' is not 'default', 'race' or 'none'");
    o.racecheck = v == "race";
    o.memcheck = o.initcheck = v != "none";
  }
  return o;
}

Stats g_stats;
std::mutex g_launch_mutex;  // one launch at a time in the process

// Fiber stacks, reused from block to block; each has an inaccessible guard
// page below it, so an overflow faults (and is reported) instead of
// corrupting a neighbour.
class StackPool {
 public:
  static constexpr std::size_t kSize = 128 * 1024;
  ctx::stack_context allocate() {
    if (free_.empty()) {
      const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
      void* base = mmap(nullptr, kSize + page, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (base == MAP_FAILED) throw std::bad_alloc();
      mprotect(base, page, PROT_NONE);
      memory::note_stack_guard(base, static_cast<char*>(base) + page);
      ctx::stack_context sc;
      sc.size = kSize;
      sc.sp = static_cast<char*>(base) + page + kSize;
      return sc;
    }
    const ctx::stack_context sc = free_.back();
    free_.pop_back();
    return sc;
  }
  void deallocate(ctx::stack_context& sc) { free_.push_back(sc); }

 private:
  std::vector<ctx::stack_context> free_;
};

StackPool& stack_pool() {
  static StackPool pool;
  return pool;
}

struct PooledStack {
  ctx::stack_context allocate() { return stack_pool().allocate(); }
  void deallocate(ctx::stack_context& sc) noexcept { stack_pool().deallocate(sc); }
};

enum class State : std::uint8_t { ready, barrier, cluster, warp, done };

struct Thread {
  uint3 idx{};
  unsigned linear = 0;
  State state = State::ready;
  ctx::fiber fiber;  // the thread while it is suspended
  ctx::fiber sink;   // the scheduler while the thread runs
  std::source_location where;
  // the warp collective it waits at
  detail::WarpOp op = detail::WarpOp::sync;
  unsigned mask = 0;
  int operand = 0, width = 32;
  std::uint64_t bits = 0, result = 0;
};

const char* op_name(detail::WarpOp op) {
  using detail::WarpOp;
  switch (op) {
    case WarpOp::sync:
      return "__syncwarp";
    case WarpOp::shfl:
      return "__shfl_sync";
    case WarpOp::shfl_xor:
      return "__shfl_xor_sync";
    case WarpOp::shfl_up:
      return "__shfl_up_sync";
    case WarpOp::shfl_down:
      return "__shfl_down_sync";
    case WarpOp::ballot:
      return "__ballot_sync";
    case WarpOp::any:
      return "__any_sync";
    case WarpOp::all:
      return "__all_sync";
  }
  return "?";
}

std::string hex(unsigned v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

// Thrown inside a fiber when its block fails: unwinds the thread's stack to
// its entry, which returns to the scheduler.
struct BlockFailed {};

class Block {
 public:
  Block(const detail::Launch& l, uint3 block, const Schedule& s, std::uint64_t salt,
        unsigned rank = 0)
      : launch_(l), block_(block), schedule_(s), rng_(s.seed ^ salt), rank_(rank) {}

  // "" when every thread returned, else why the block failed (a block
  // without a cluster: a cluster_sync is its own barrier).
  std::string run();

  // The steps of a block of a cluster: start() makes its threads, advance()
  // runs them until they have all returned (done), until each waits at the
  // cluster barrier (parked), or until the block fails (error() says why);
  // release_cluster() lets a parked block's threads go on.
  enum class Step { done, parked, failed };
  void start();
  Step advance();
  void release_cluster();
  // "" when the parked block's threads all wait at one cluster barrier.
  std::string cluster_divergence() const;
  const std::source_location& cluster_site() const { return threads_.front().where; }
  const std::string& error() const { return error_; }
  unsigned rank() const { return rank_; }

  // Called by the running thread (through barrier() and warp_collective()).
  void arrive_barrier(const std::source_location& where);
  void arrive_cluster(const std::source_location& where);
  std::uint64_t arrive_warp(detail::WarpOp op, unsigned mask, std::uint64_t bits, int operand,
                            int width, const std::source_location& where);
  std::string position() const {
    return std::string("kernel ") + launch_.name + ", block " + coords(block_) +
           (current_ ? ", thread " + coords(current_->idx) : std::string());
  }
  const Thread* current() const { return current_; }
  uint3 block_index() const { return block_; }
  const char* kernel() const { return launch_.name; }
  // Stops the block with `why` (kept as it is: it names the kernel).
  [[noreturn]] void fail_with(std::string why) {
    if (error_.empty()) error_ = std::move(why) + " (block " + coords(block_) + ")";
    throw BlockFailed{};
  }

 private:
  [[noreturn]] void fail(std::string why);
  bool leads(const Thread& t) const;
  bool run_round(bool leaders, bool stop_when_leader_ready);
  bool leader_ready() const;
  bool parked() const { return at_cluster_ == threads_.size(); }
  void run_round_robin();
  void run_leader_first(bool ahead);
  void suspend() { current_->sink = std::move(current_->sink).resume(); }
  void resume(Thread& t);
  void release_barrier();
  void complete_warp(unsigned warp, unsigned mask);
  std::string stalled() const;
  std::string describe(const Thread& t) const;
  void next_order();

  const detail::Launch& launch_;
  uint3 block_;
  Schedule schedule_;
  std::mt19937_64 rng_;
  std::vector<Thread> threads_;
  std::vector<unsigned> order_;
  std::vector<unsigned> warp_arrived_;           // per warp: lanes waiting at a collective
  std::pair<unsigned, unsigned> leaders_{0, 0};  // [first, last) thread run ahead or behind
  unsigned rank_ = 0;                            // in its cluster
  unsigned at_barrier_ = 0, at_cluster_ = 0, done_ = 0;
  Thread* current_ = nullptr;
  std::string error_;
};

Block* g_block = nullptr;  // the block running now

void Block::fail(std::string why) {
  if (error_.empty()) error_ = position() + ": " + std::move(why);
  throw BlockFailed{};
}

bool Block::leads(const Thread& t) const {
  return t.linear >= leaders_.first && t.linear < leaders_.second;
}

bool Block::leader_ready() const {
  for (unsigned t = leaders_.first; t < leaders_.second; ++t)
    if (threads_[t].state == State::ready) return true;
  return false;
}

// One pass over the leaders (or the others) in order: each ready one runs to
// its next switch point. Whether any ran.
bool Block::run_round(bool leaders, bool stop_when_leader_ready) {
  bool ran = false;
  for (unsigned t : order_) {
    Thread& th = threads_[t];
    if (th.state != State::ready || leads(th) != leaders) continue;
    resume(th);
    ran = true;
    if (!error_.empty() || (stop_when_leader_ready && leader_ready())) break;
  }
  return ran;
}

void Block::run_round_robin() {
  while (done_ < threads_.size() && error_.empty()) {
    next_order();
    if (!run_round(false, false) && error_.empty()) {
      if (parked()) return;
      error_ = position() + ": " + stalled();
    }
  }
}

// ahead: the leaders run whenever they can, the others only while no leader
// can; behind: the others run as far as they can before the leaders move.
void Block::run_leader_first(bool ahead) {
  while (done_ < threads_.size() && error_.empty()) {
    bool progress = false;
    if (ahead) {
      while (error_.empty() && run_round(true, false)) progress = true;
      if (error_.empty() && run_round(false, true)) progress = true;
    } else {
      while (error_.empty() && run_round(false, false)) progress = true;
      if (error_.empty() && run_round(true, false)) progress = true;
    }
    if (!progress && error_.empty()) {
      if (parked()) return;
      error_ = position() + ": " + stalled();
    }
  }
}

void Block::resume(Thread& t) {
  current_ = &t;
  threadIdx = t.idx;
  ++g_stats.resumes;
  t.fiber = std::move(t.fiber).resume();
  current_ = nullptr;
}

void Block::next_order() {
  if (schedule_.kind == Schedule::random) std::shuffle(order_.begin(), order_.end(), rng_);
}

void Block::start() {
  const dim3 b = launch_.block;
  const unsigned n = b.x * b.y * b.z;
  threads_.resize(n);
  order_.resize(n);
  std::iota(order_.begin(), order_.end(), 0u);
  if (schedule_.kind == Schedule::reversed) std::reverse(order_.begin(), order_.end());
  warp_arrived_.assign((n + 31) / 32, 0u);
  switch (schedule_.kind) {
    case Schedule::warp_ahead:
    case Schedule::warp_behind: {
      const auto w = static_cast<unsigned>(schedule_.seed % ((n + 31) / 32));
      leaders_ = {w * 32, std::min(n, w * 32 + 32)};
      break;
    }
    case Schedule::thread_ahead:
    case Schedule::thread_behind: {
      const auto t = static_cast<unsigned>(schedule_.seed % n);
      leaders_ = {t, t + 1};
      break;
    }
    default:
      leaders_ = {0, 0};
  }
  for (unsigned t = 0; t < n; ++t) {
    Thread& th = threads_[t];
    th.linear = t;
    th.idx = {t % b.x, (t / b.x) % b.y, t / (b.x * b.y)};
    th.fiber = ctx::fiber(std::allocator_arg, PooledStack{}, [this, &th](ctx::fiber&& sink) {
      th.sink = std::move(sink);
      try {
        launch_.body(launch_.params);
        th.state = State::done;
        ++done_;
      } catch (const BlockFailed&) {
        // error_ says why; the scheduler stops the block
      } catch (const ctx::detail::forced_unwind&) {
        throw;
      } catch (const std::exception& e) {
        if (error_.empty()) error_ = position() + ": the kernel threw: " + e.what();
      }
      return std::move(th.sink);
    });
  }
  ++g_stats.blocks;
  g_stats.threads += n;
}

Block::Step Block::advance() {
  switch (schedule_.kind) {
    case Schedule::in_order:
    case Schedule::reversed:
    case Schedule::random:
      run_round_robin();
      break;
    case Schedule::warp_ahead:
    case Schedule::thread_ahead:
      run_leader_first(true);
      break;
    case Schedule::warp_behind:
    case Schedule::thread_behind:
      run_leader_first(false);
      break;
  }
  if (!error_.empty()) return Step::failed;
  return done_ == threads_.size() ? Step::done : Step::parked;
}

std::string Block::cluster_divergence() const {
  const Thread& first = threads_.front();
  for (const Thread& t : threads_)
    if (t.where.line() != first.where.line() ||
        std::strcmp(t.where.file_name(), first.where.file_name()) != 0)
      return position() + ": different cluster barriers: thread " + coords(first.idx) + " " +
             describe(first) + ", thread " + coords(t.idx) + " " + describe(t);
  return "";
}

void Block::release_cluster() {
  for (Thread& t : threads_) t.state = State::ready;
  at_cluster_ = 0;
}

std::string Block::run() {
  start();
  while (advance() == Step::parked) {
    if (error_ = cluster_divergence(); !error_.empty()) break;
    release_cluster();
    checks::barrier();
  }
  threads_.clear();  // unwinds the stacks of threads still suspended
  return error_;
}

std::string Block::describe(const Thread& t) const {
  switch (t.state) {
    case State::ready:
      return "is running";
    case State::done:
      return "has exited";
    case State::barrier:
      return "waits at __syncthreads (" + site(t.where) + ")";
    case State::cluster:
      return "waits at cluster_sync (" + site(t.where) + ")";
    case State::warp:
      return std::string("waits at ") + op_name(t.op) + "(mask " + hex(t.mask) + ") (" +
             site(t.where) + ")";
  }
  return "?";
}

// Why no thread can go on.
std::string Block::stalled() const {
  for (const Thread& t : threads_) {
    if (t.state != State::warp) continue;
    const unsigned warp = t.linear / 32;
    for (unsigned lane = 0; lane < 32; ++lane) {
      if (!((t.mask >> lane) & 1u)) continue;
      const Thread& other = threads_[warp * 32 + lane];
      if (other.state == State::warp && other.mask == t.mask) continue;
      return "lane " + std::to_string(t.linear % 32) + " of warp " + std::to_string(warp) + " " +
             describe(t) + " for lane " + std::to_string(lane) + ", named in its mask, which " +
             describe(other);
    }
  }
  for (const Thread& t : threads_) {
    if (t.state != State::barrier && t.state != State::cluster) continue;
    const char* what = t.state == State::barrier ? "__syncthreads" : "cluster barrier";
    for (const Thread& other : threads_)
      if (other.state == State::done)
        return std::string("a divergent ") + what + ": thread " + coords(t.idx) + " " +
               describe(t) + ", but thread " + coords(other.idx) + " has exited";
  }
  for (const Thread& t : threads_)
    if (t.state == State::cluster)
      for (const Thread& other : threads_)
        if (other.state == State::barrier)
          return "thread " + coords(t.idx) + " " + describe(t) + ", but thread " +
                 coords(other.idx) + " " + describe(other);
  return "no thread can go on";
}

void Block::arrive_barrier(const std::source_location& where) {
  Thread& t = *current_;
  t.state = State::barrier;
  t.where = where;
  if (++at_barrier_ == threads_.size()) {
    release_barrier();
    return;  // the last to arrive goes on without a switch
  }
  suspend();
  if (!error_.empty()) throw BlockFailed{};
}

void Block::release_barrier() {
  const Thread& first = threads_.front();
  for (const Thread& t : threads_) {
    if (t.where.line() != first.where.line() ||
        std::strcmp(t.where.file_name(), first.where.file_name()) != 0)
      fail("a divergent __syncthreads: thread " + coords(first.idx) + " " + describe(first) +
           ", thread " + coords(t.idx) + " " + describe(t));
  }
  for (Thread& t : threads_) t.state = State::ready;
  at_barrier_ = 0;
  checks::barrier();
}

// Unlike __syncthreads, the last thread to arrive waits too: the block is
// parked until every block of its cluster is (the scheduler opens it).
void Block::arrive_cluster(const std::source_location& where) {
  Thread& t = *current_;
  t.state = State::cluster;
  t.where = where;
  ++at_cluster_;
  suspend();
  if (!error_.empty()) throw BlockFailed{};
}

std::uint64_t Block::arrive_warp(detail::WarpOp op, unsigned mask, std::uint64_t bits, int operand,
                                 int width, const std::source_location& where) {
  Thread& t = *current_;
  const unsigned lane = t.linear % 32, warp = t.linear / 32;
  // the call as a message names it (formatted only when something is wrong)
  const auto call = [&] {
    return std::string(op_name(op)) + "(mask " + hex(mask) + ") at " + site(where);
  };
  if (!((mask >> lane) & 1u))
    fail("lane " + std::to_string(lane) + " calls " + call() + ", whose mask does not name it");
  const unsigned lanes = std::min<unsigned>(32, static_cast<unsigned>(threads_.size()) - warp * 32);
  const unsigned exists = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
  if (mask & ~exists)
    fail(call() + " names lanes that this block's warp " + std::to_string(warp) +
         " does not have (it has " + std::to_string(lanes) + ")");
  if (width < 1 || width > 32 || (width & (width - 1)) != 0)
    fail(call() + " with width " + std::to_string(width) + ": not a power of two in [1, 32]");
  t.state = State::warp;
  t.where = where;
  t.op = op;
  t.mask = mask;
  t.bits = bits;
  t.operand = operand;
  t.width = width;
  warp_arrived_[warp] |= 1u << lane;
  if ((warp_arrived_[warp] & mask) == mask) {
    complete_warp(warp, mask);
  } else {
    suspend();
    if (!error_.empty()) throw BlockFailed{};
  }
  return t.result;
}

void Block::complete_warp(unsigned warp, unsigned mask) {
  using detail::WarpOp;
  Thread* lane0 = &threads_[warp * 32];
  const Thread& me = *current_;
  for (unsigned l = 0; l < 32; ++l) {
    if (!((mask >> l) & 1u)) continue;
    const Thread& o = lane0[l];
    if (o.op != me.op || o.mask != me.mask || o.width != me.width)
      fail("lanes of warp " + std::to_string(warp) + " meet at different collectives: lane " +
           std::to_string(me.linear % 32) + " " + describe(me) + ", lane " + std::to_string(l) +
           " " + describe(o));
  }
  std::uint64_t votes = 0;
  for (unsigned l = 0; l < 32; ++l)
    if (((mask >> l) & 1u) && lane0[l].bits) votes |= 1ull << l;
  for (unsigned l = 0; l < 32; ++l) {
    if (!((mask >> l) & 1u)) continue;
    Thread& o = lane0[l];
    const unsigned segment = l & ~static_cast<unsigned>(o.width - 1);
    const unsigned end = segment + static_cast<unsigned>(o.width);
    long src = l;
    switch (o.op) {
      case WarpOp::sync:
        o.result = 0;
        break;
      case WarpOp::ballot:
        o.result = votes;
        break;
      case WarpOp::any:
        o.result = votes != 0;
        break;
      case WarpOp::all:
        o.result = votes == mask;
        break;
      case WarpOp::shfl:
        src = segment + (static_cast<unsigned>(o.operand) & static_cast<unsigned>(o.width - 1));
        break;
      case WarpOp::shfl_xor:
        src = static_cast<long>(l ^ static_cast<unsigned>(o.operand));
        if (src < 0 || static_cast<unsigned long>(src) >= end) src = l;
        break;
      case WarpOp::shfl_up:
        src = static_cast<long>(l) - o.operand;
        if (src < static_cast<long>(segment)) src = l;
        break;
      case WarpOp::shfl_down:
        src = static_cast<long>(l) + o.operand;
        if (src >= static_cast<long>(end)) src = l;
        break;
    }
    if (o.op == WarpOp::shfl || o.op == WarpOp::shfl_xor || o.op == WarpOp::shfl_up ||
        o.op == WarpOp::shfl_down) {
      if (src < 0 || src >= 32 || !((mask >> src) & 1u))
        fail("lane " + std::to_string(l) + " of warp " + std::to_string(warp) + " reads lane " +
             std::to_string(src) + " in " + describe(o) +
             ", a lane its mask does not name (undefined on a GPU)");
      o.result = lane0[src].bits;
    }
  }
  for (unsigned l = 0; l < 32; ++l)
    if ((mask >> l) & 1u) lane0[l].state = State::ready;
  warp_arrived_[warp] &= ~mask;
  checks::warp_collective(warp, mask);
}

// Device memory a launch reaches, saved to compare schedules.
struct Snapshot {
  std::vector<memory::Span> spans;
  std::vector<std::vector<std::byte>> bytes;
  std::vector<std::vector<std::uint8_t>> written;  // initcheck's flags
  static Snapshot of(const std::vector<memory::Span>& spans) {
    Snapshot s{spans, {}, checks::save_written(spans)};
    for (const auto& sp : spans) s.bytes.emplace_back(sp.data, sp.data + sp.bytes);
    return s;
  }
  void restore() const {
    for (std::size_t i = 0; i < spans.size(); ++i)
      std::memcpy(spans[i].data, bytes[i].data(), spans[i].bytes);
    checks::restore_written(spans, written);
  }
  // "" when the memory now holds the same bits, else where it first differs.
  std::string differs() const {
    for (std::size_t i = 0; i < spans.size(); ++i) {
      if (std::memcmp(spans[i].data, bytes[i].data(), spans[i].bytes) == 0) continue;
      std::size_t at = 0;
      while (spans[i].data[at] == bytes[i][at]) ++at;
      char b[160];
      std::snprintf(b, sizeof b, "byte %zu of the %zu-byte allocation at %p", at, spans[i].bytes,
                    static_cast<const void*>(spans[i].data));
      return b;
    }
    return "";
  }
};

// "" unless the launch left the shared-memory poison somewhere in device
// memory it did not hold before: a result computed from shared memory that
// no thread of the block had written.
std::string poison_written(const detail::Launch& l, const std::vector<memory::Span>& spans,
                           const std::vector<std::vector<std::size_t>>& before) {
  const auto after = memory::poison_words(spans);
  for (std::size_t k = 0; k < spans.size(); ++k)
    for (std::size_t at : after[k])
      if (!std::binary_search(before[k].begin(), before[k].end(), at)) {
        char b[300];
        std::snprintf(b, sizeof b,
                      "kernel %s: wrote a value computed from shared memory that no "
                      "thread had written (the poison NaN 0x%08x) at byte %zu of the %zu-byte "
                      "allocation at %p",
                      l.name, memory::kPoisonWord, at, spans[k].bytes,
                      static_cast<const void*>(spans[k].data));
        return b;
      }
  return "";
}

std::string config_error(const detail::Launch& l, const Options& o) {
  const dim3 g = l.grid, b = l.block;
  std::ostringstream s;
  const unsigned long long threads = 1ull * b.x * b.y * b.z;
  if (b.x == 0 || b.y == 0 || b.z == 0 || b.x > 1024 || b.y > 1024 || b.z > 64 || threads > 1024)
    s << "block (" << b.x << ", " << b.y << ", " << b.z
      << "): a block has 1 to 1024 threads, at most (1024, 1024, 64) in each dimension";
  else if (g.x == 0 || g.y == 0 || g.z == 0 || g.x > o.max_grid_x || g.y > 65535 || g.z > 65535)
    s << "grid (" << g.x << ", " << g.y << ", " << g.z << "): each dimension from 1, at most ("
      << o.max_grid_x << ", 65535, 65535)";
  else if (l.cluster < 1 || l.cluster > 8 || g.x % l.cluster != 0)
    s << "clusters of " << l.cluster << " blocks in a grid of " << g.x
      << " along x: a cluster has 1 to 8 blocks (the portable sizes), and grid.x is a multiple "
         "of them";
  return s.str();
}

}  // namespace

std::string coords(uint3 v) {
  char b[48];
  std::snprintf(b, sizeof b, "(%u, %u, %u)", v.x, v.y, v.z);
  return b;
}

std::string site(const std::source_location& w) {
  std::string file = w.file_name();
  for (const char* root : {"/cuda/", "/tests/"})
    if (const auto at = file.rfind(root); at != std::string::npos) {
      file = file.substr(at + 1);
      break;
    }
  return file + ":" + std::to_string(w.line());
}

Options& options() {
  static Options o = read_environment();
  return o;
}

Stats stats() { return g_stats; }

void fail_running_block(std::string why) {
  if (!g_block) std::abort();  // a device access outside a kernel
  g_block->fail_with(std::move(why));
}

void describe_position(char* buf, std::size_t size) {
  const Block* b = g_block;
  if (!b) {
    std::snprintf(buf, size, "host code (no kernel running)");
    return;
  }
  const uint3 bi = b->block_index();
  const Thread* t = b->current();
  if (t)
    std::snprintf(buf, size, "kernel %s, block (%u, %u, %u), thread (%u, %u, %u)", b->kernel(),
                  bi.x, bi.y, bi.z, t->idx.x, t->idx.y, t->idx.z);
  else
    std::snprintf(buf, size, "kernel %s, block (%u, %u, %u)", b->kernel(), bi.x, bi.y, bi.z);
}

namespace detail {

std::string readable_kernel_name(std::string_view f) {
  const auto at = f.find("Kernel = ");
  if (at == std::string_view::npos) return std::string(f);
  f = f.substr(at + 9);
  f = f.substr(0, f.rfind(']'));
  if (!f.empty() && f.front() == '&') f.remove_prefix(1);
  std::string name(f);
  for (std::size_t p; (p = name.find("{anonymous}::")) != std::string::npos;) name.erase(p, 13);
  return name;
}

void barrier(const std::source_location& where) {
  if (!g_block) std::abort();  // __syncthreads outside a kernel
  g_block->arrive_barrier(where);
}

void cluster_barrier(const std::source_location& where) {
  if (!g_block) std::abort();  // cluster_sync outside a kernel
  g_block->arrive_cluster(where);
}

unsigned cluster_rank() {
  if (!g_block) std::abort();
  return g_block->rank();
}

std::uint64_t warp_collective(WarpOp op, unsigned mask, std::uint64_t bits, int operand, int width,
                              const std::source_location& where) {
  if (!g_block) std::abort();
  return g_block->arrive_warp(op, mask, bits, operand, width, where);
}

void run(const Launch& l) {
  const std::lock_guard lock(g_launch_mutex);
  const Options& o = options();
  memory::install_fault_handler();
  if (const std::string bad = config_error(l, o); !bad.empty()) {
    record_error(cudaErrorInvalidConfiguration,
                 std::string("kernel ") + l.name + ": invalid launch configuration: " + bad);
    return;
  }
  if (const std::size_t limit = dynamic_shared_limit(l.kernel); l.shared_bytes > limit) {
    record_error(cudaErrorInvalidValue,
                 std::string("kernel ") + l.name + ": launched with " +
                     std::to_string(l.shared_bytes) +
                     " bytes of dynamic shared memory, but it may "
                     "use " +
                     std::to_string(limit) +
                     " (cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize) opts in "
                     "to more)");
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  const std::vector<memory::Span> spans = memory::reachable(l.params, l.params_bytes);
  const bool compare = o.schedules.size() > 1;
  const Snapshot before = compare ? Snapshot::of(spans) : Snapshot{};
  Snapshot first;
  const auto poisoned_before = memory::poison_words(spans);
  memory::arm_dynamic_shared(l.shared_bytes);
  const dim3 g = l.grid;
  const unsigned long long blocks = 1ull * g.x * g.y * g.z;
  const unsigned C = l.cluster;
  const unsigned long long clusters = blocks / C;
  const bool sampled = o.sample_blocks > 0 && blocks > o.sample_blocks;
  // a sampled launch runs whole clusters, evenly spaced
  const unsigned long long clusters_run =
      sampled ? std::max<unsigned long long>(1, o.sample_blocks / C) : clusters;
  const unsigned threads = l.block.x * l.block.y * l.block.z;
  std::string error;
  std::uint64_t salt = g_stats.launches * 0x9e3779b97f4a7c15ull;
  ++g_stats.launches;
  const auto block_index = [&](unsigned long long k) {
    return uint3{static_cast<unsigned>(k % g.x), static_cast<unsigned>((k / g.x) % g.y),
                 static_cast<unsigned>(k / (1ull * g.x * g.y))};
  };
  for (std::size_t si = 0; si < o.schedules.size() && error.empty(); ++si) {
    const Schedule& s = o.schedules[si];
    if (si > 0) before.restore();
    std::vector<unsigned long long> order(clusters);
    std::iota(order.begin(), order.end(), 0ull);
    if (sampled)
      for (unsigned long long k = 0; k < clusters_run; ++k) order[k] = k * clusters / clusters_run;
    if (sampled) order.resize(clusters_run);
    if (s.kind == Schedule::reversed) std::reverse(order.begin(), order.end());
    if (s.kind == Schedule::random) {
      std::mt19937_64 rng(s.seed ^ salt);
      std::shuffle(order.begin(), order.end(), rng);
    }
    gridDim = g;
    blockDim = l.block;
    checks::begin_launch(l.name, g, l.block, dynamic_shared_base(), l.shared_bytes, sampled,
                         static_shared_budget(l.kernel, l.shared_bytes));
    const bool count = o.traffic && si == 0;
    if (count)
      traffic::begin_launch(l.name, g, l.block, l.shared_bytes, C, blocks, order.size() * C);
    // one block of a launch without clusters
    const auto run_block = [&](unsigned long long k) {
      memory::poison_dynamic_shared(l.shared_bytes);
      blockIdx = block_index(k);
      Block block(l, blockIdx, s, salt + k);
      g_block = &block;
      checks::begin_block(static_cast<std::uint32_t>(k), threads);
      if (count) traffic::begin_block(threads);
      std::string e = block.run();
      checks::end_block();
      if (count) traffic::end_block();
      g_block = nullptr;
      return e;
    };
    // the C blocks of cluster q, together
    const auto run_cluster = [&](unsigned long long q) {
      std::vector<std::unique_ptr<Block>> members(C);
      std::vector<char> finished(C, 0);
      std::vector<unsigned> ranks(C);
      std::iota(ranks.begin(), ranks.end(), 0u);
      if (s.kind == Schedule::reversed) std::reverse(ranks.begin(), ranks.end());
      if (s.kind == Schedule::random) {
        std::mt19937_64 rng(s.seed ^ salt ^ (q + 1) * 0xbf58476d1ce4e5b9ull);
        std::shuffle(ranks.begin(), ranks.end(), rng);
      }
      checks::begin_cluster(C);
      std::string e;
      while (e.empty()) {
        bool all_done = true;
        for (unsigned r : ranks) {
          if (finished[r]) continue;
          const unsigned long long k = q * C + r;
          blockIdx = block_index(k);
          if (!members[r]) {
            memory::poison_dynamic_shared(l.shared_bytes);
            members[r] = std::make_unique<Block>(l, blockIdx, s, salt + k, r);
            checks::begin_block(static_cast<std::uint32_t>(k), threads, r);
            if (count) traffic::begin_block(threads);
            g_block = members[r].get();
            members[r]->start();
          } else {
            checks::resume_block(r);
            if (count) traffic::resume_block(r);
            g_block = members[r].get();
          }
          const Block::Step step = members[r]->advance();
          g_block = nullptr;
          if (step == Block::Step::parked) {
            checks::park_block(r);
            if (count) traffic::park_block(r);
            all_done = false;
            continue;
          }
          checks::end_block();
          if (count) traffic::end_block();
          if (step == Block::Step::failed) {
            e = members[r]->error();
            break;
          }
          finished[r] = 1;
        }
        if (!e.empty() || all_done) break;
        // every block that has not returned waits at the cluster barrier
        for (unsigned r = 0; r < C && e.empty(); ++r) {
          if (!finished[r]) {
            e = members[r]->cluster_divergence();
            continue;
          }
          for (unsigned p = 0; p < C; ++p)
            if (!finished[p]) {
              e = std::string("kernel ") + l.name + ": block " + coords(block_index(q * C + r)) +
                  " has returned while block " + coords(block_index(q * C + p)) +
                  " of its cluster waits at cluster_sync (" + site(members[p]->cluster_site()) +
                  "): every block of a cluster must reach it";
              break;
            }
        }
        for (unsigned r = 0; r < C && e.empty(); ++r) {
          const auto& a = members[0]->cluster_site();
          const auto& b = members[r]->cluster_site();
          if (a.line() != b.line() || std::strcmp(a.file_name(), b.file_name()) != 0)
            e = std::string("kernel ") + l.name + ": different cluster barriers: block " +
                coords(block_index(q * C)) + " waits at " + site(a) + ", block " +
                coords(block_index(q * C + r)) + " at " + site(b);
        }
        if (!e.empty()) break;
        for (auto& m : members) m->release_cluster();
        checks::cluster_barrier();
      }
      members.clear();  // unwinds the stacks of threads still suspended
      checks::end_cluster();
      return e;
    };
    for (unsigned long long q : order) {
      error = C == 1 ? run_block(q) : run_cluster(q);
      if (!error.empty()) break;
    }
    if (count) traffic::end_launch();
    if (!error.empty()) {
      error += " (schedule " + s.name() + ")";
      break;
    }
    for (const auto& sp : spans)
      if (std::string p = memory::check_padding(sp); !p.empty()) {
        error = std::string("kernel ") + l.name + ": " + p;
        break;
      }
    // a sampled launch's inputs may be outputs no block wrote (traffic.hpp)
    if (error.empty() && !sampled) error = poison_written(l, spans, poisoned_before);
    if (!error.empty() || !compare) break;
    if (si == 0) {
      first = Snapshot::of(spans);
    } else if (std::string d = first.differs(); !d.empty()) {
      error = std::string("kernel ") + l.name + ": results differ between schedules " +
              o.schedules[0].name() + " and " + s.name() + ": " + d +
              " (a race: threads or blocks that depend on an order the GPU does not promise)";
    }
  }
  memory::arm_dynamic_shared(0);
  g_stats.seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!error.empty()) record_error(cudaErrorLaunchFailure, std::move(error));
}

}  // namespace detail

}  // namespace scaleref::emu
