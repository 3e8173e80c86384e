// What the emulator checks at each kernel access (scaleref/emu/access.hpp's
// ld, st and the atomics all call access() below): cuda/README.md, "The
// emulator", and its table against compute-sanitizer.
//
// memcheck   the bytes lie inside one live device allocation, or inside the
//            block's static or dynamic shared memory, and the address is
//            aligned to the type. A read of an allocation's padding (the
//            bytes up to the next 256, which the guard pages cannot catch) is
//            reported here, as is an access to freed or host memory.
// initcheck  every byte a kernel loads, and every byte copied out of device
//            memory (runtime.cpp's copies), was written before: device memory by
//            cudaMemcpy, cudaMemset, cuBLAS or a kernel store since cudaMalloc
//            (one flag per byte and a count of bytes still unwritten, so an
//            allocation written whole costs nothing more); shared memory by a
//            thread of the running block (a stamp per byte: the block's serial
//            number, so nothing is cleared between blocks).
// racecheck  (SCALEREF_EMU_CHECK=race) per 2-byte granule of shared memory,
//            and of device memory within one launch: the last write and the
//            last read (thread, block, barrier interval, the warp's count of
//            collectives then, source line). Two accesses, at least one a
//            write, by different threads race unless a __syncthreads lies
//            between them (they are in different barrier intervals) or a warp
//            collective after the first names both lanes. In device memory
//            two blocks of one launch race on any such pair: nothing orders
//            blocks. Reported even when the values agree. Atomics are left out.
//            Several reads in one interval are all held against a later write
//            by another thread: the last one pairwise, the others together
//            (ordered only when they are in the writer's warp and a collective
//            after the latest of them named their lanes and the writer's).
//            A write then stands for the reads before it.
//            Thread-block clusters: a block reaches the dynamic shared memory
//            of the other blocks of its cluster (kernel.hpp's cluster_peer);
//            two blocks' accesses to it race unless a cluster barrier lies
//            between them (the other reads of an interval are tracked
//            within one block only).
//
// Clusters (scheduler.cpp runs a cluster's blocks by turns): while a block
// is parked at the cluster barrier, its dynamic shared memory is kept in its
// window (one per rank, where the other blocks' cluster_peer reach it) with
// its initcheck stamps and racecheck cells, and its static shared arrays
// beside its barrier counts; the block that runs next has the arena to
// itself. A window whose block has returned is gone: an access to it is an
// error.
//
// Launches are serialized (scheduler.cpp), and this state is read and
// written by the launching thread; a cudaMalloc, cudaFree or copy from
// another host thread while a kernel runs is not supported.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <scaleref/emu/launch.hpp>
#include <string>
#include <vector>

#include "internal.hpp"

namespace scaleref::emu {

namespace {

using detail::Access;

// One access as racecheck remembers it.
struct Mark {
  std::uint32_t launch = 0;  // the launch's serial number (0: none)
  std::uint32_t block = 0;   // the block's serial number
  std::uint32_t epoch = 0;   // barrier intervals the block had passed
  std::uint32_t wseq = 0;    // collectives the thread's warp had completed
  std::uint32_t block_linear = 0;
  std::uint16_t thread = 0;  // linear index in the block
  std::source_location where;
  std::uint32_t cluster = 0;        // the cluster's serial number (a block alone is one)
  std::uint32_t cluster_epoch = 0;  // cluster barriers it had passed
};

// A granule's racecheck state: the last write, the last read, and the other
// reads since the last write: in the last read's barrier interval, by other
// threads (their lanes, whether they span warps, and the latest of their
// warps' collective counts), and in the launch, by other blocks.
struct Cell {
  Mark write, read;
  Mark other;  // the latest of the other reads
  bool others_read = false, other_blocks_read = false;
  bool others_in_warps = false;    // the other readers are not all in one warp
  std::uint32_t others_warp = 0;   // their warp (when in one)
  std::uint32_t others_lanes = 0;  // their lanes (when in one warp)
  std::uint32_t others_wseq = 0;   // the latest of their warp's collective counts
};

constexpr std::size_t kGranule = 2;
constexpr std::size_t kFreed = 1 << 16;  // freed allocations remembered, for "use after free"

struct Allocation {
  std::byte* data = nullptr;
  std::size_t bytes = 0;
  std::vector<std::uint8_t> written;  // one per byte
  std::size_t unwritten = 0;
  std::vector<Cell> cells;  // racecheck only, sized at its first access
};

// Shared memory: each static array a kernel declares (SCALEREF_SHARED,
// registered at its first use), and the launch's dynamic shared memory.
struct Region {
  std::byte* lo = nullptr;
  std::size_t bytes = 0;
  const char* name = "";
  std::vector<std::uint32_t> stamp;  // the serial of the block that last wrote the byte
  std::vector<Cell> cells;
  std::uint32_t opened = 0;  // static arrays: the block that last poisoned it
  // a cluster's window (another block's dynamic shared memory): the serial
  // of the block it belongs to (0: the running block's own memory), and
  // whether that block has not begun yet, or has returned
  std::uint32_t owner = 0;
  bool unborn = false, gone = false;
};

// A block of a cluster while another runs: where it was, and the static
// shared arrays it had opened (their bytes, stamps and cells).
struct SavedStatic {
  std::vector<std::byte> bytes;
  std::vector<std::uint32_t> stamp;
  std::vector<Cell> cells;
};
struct Parked {
  std::uint32_t serial = 0, linear = 0, epoch = 0;
  std::vector<std::vector<unsigned>> collectives;
  std::size_t block_static = 0;
  std::map<std::uintptr_t, SavedStatic> statics;
};

struct alignas(16) Line16 {
  std::byte b[16];
};

struct State {
  std::map<std::uintptr_t, Allocation> allocations;  // by data address
  std::map<std::uintptr_t, std::size_t> freed;       // data address -> bytes, the latest kFreed
  Allocation* last = nullptr;
  std::map<std::uintptr_t, Region> statics;  // by address
  Region dynamics{nullptr, 0, "dynamic shared memory", {}, {}, 0};
  // the running launch and block
  const char* kernel = "";
  dim3 grid, block;
  std::uint32_t launch = 0, block_serial = 0, block_linear = 0, epoch = 0;
  std::vector<std::vector<unsigned>> collectives;  // per warp: the masks, in order
  bool running = false;
  bool sampled = false;                     // the launch runs some of its blocks only: no initcheck
  StaticSharedBudget static_budget{0, ""};  // the static shared memory a block may declare
  std::size_t block_static = 0;             // what the running block declared so far
  std::uint32_t next_serial = 0;            // block serials handed out
  // thread-block clusters: the running cluster's blocks (0: none), the
  // running block's rank, the cluster's serial number and barriers passed,
  // its blocks' serials (first_serial + rank), their windows and the parked
  std::uint32_t cluster_blocks = 0, rank = 0, cluster_serial = 0, cluster_epoch = 0;
  std::uint32_t first_serial = 0;
  std::vector<Region> windows;
  std::vector<Line16> window_bytes;
  std::vector<Parked> parked;
};

// "cluster rank R's dynamic shared memory", a window's name (Region::name).
const char* window_name(unsigned rank) {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (int r = 0; r < 8; ++r)
      v.push_back("cluster rank " + std::to_string(r) + "'s dynamic shared memory");
    return v;
  }();
  return names.at(rank).c_str();
}

// The serial of the block whose shared memory region r is.
std::uint32_t owner_of(const State& s, const Region& r) {
  return r.owner ? r.owner : s.block_serial;
}

State& state() {
  static State* s = new State;  // never destroyed: allocations may outlive statics
  return *s;
}

uint3 unflatten(std::uint32_t k, dim3 d) { return {k % d.x, (k / d.x) % d.y, k / (d.x * d.y)}; }

std::string address(const void* p) {
  char b[32];
  std::snprintf(b, sizeof b, "%p", p);
  return b;
}

// "byte K of the B-byte allocation at P" or "byte K of the block's static shared memory".
std::string where_in(const Allocation* a, const Region* r, const std::byte* p) {
  if (a)
    return "byte " + std::to_string(p - a->data) + " of the " + std::to_string(a->bytes) +
           "-byte allocation at " + address(a->data);
  return "byte " + std::to_string(p - r->lo) + (r->owner ? " of " : " of the block's ") + r->name;
}

[[noreturn]] void fail(std::string why) {
  fail_running_block("kernel " + std::string(state().kernel) + ": " + std::move(why));
}

Allocation* find_allocation(State& s, const std::byte* p) {
  if (s.last && p >= s.last->data && p < s.last->data + s.last->bytes) return s.last;
  auto it = s.allocations.upper_bound(reinterpret_cast<std::uintptr_t>(p));
  if (it == s.allocations.begin()) return nullptr;
  Allocation& a = std::prev(it)->second;
  if (p >= a.data + a.bytes) return nullptr;
  s.last = &a;
  return &a;
}

// The shared memory region that holds byte p, if any.
Region* find_region(State& s, const std::byte* p) {
  if (s.dynamics.lo && p >= s.dynamics.lo && p < s.dynamics.lo + s.dynamics.bytes)
    return &s.dynamics;
  for (Region& w : s.windows)
    if (p >= w.lo && p < w.lo + w.bytes) return &w;
  auto it = s.statics.upper_bound(reinterpret_cast<std::uintptr_t>(p));
  if (it == s.statics.begin()) return nullptr;
  Region& r = std::prev(it)->second;
  return p < r.lo + r.bytes ? &r : nullptr;
}

// Why [p, p + n) is in no allocation and no shared memory.
std::string outside(State& s, const std::byte* p, std::size_t n, const char* verb) {
  std::string what = std::string(verb) + " of " + std::to_string(n) + " bytes at " + address(p);
  if (auto f = s.freed.upper_bound(reinterpret_cast<std::uintptr_t>(p)); f != s.freed.begin()) {
    const auto& [lo, bytes] = *std::prev(f);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    if (a < lo + bytes)
      return what + ": use after free, byte " + std::to_string(a - lo) + " of a freed " +
             std::to_string(bytes) + "-byte allocation at " +
             address(reinterpret_cast<const void*>(lo));
  }
  auto it = s.allocations.upper_bound(reinterpret_cast<std::uintptr_t>(p));
  if (it != s.allocations.begin()) {
    const Allocation& a = std::prev(it)->second;
    if (p < a.data + a.bytes)  // starts inside, runs past the end
      return what + ": runs " + std::to_string(p + n - (a.data + a.bytes)) +
             " bytes past the end of the " + std::to_string(a.bytes) + "-byte allocation at " +
             address(a.data);
    if (p < a.data + a.bytes + 4096)  // the rest of its 256 bytes, then the guard page
      return what + ": " + std::to_string(p - (a.data + a.bytes)) + " bytes past the end of the " +
             std::to_string(a.bytes) + "-byte allocation at " + address(a.data) +
             (p < a.data + (a.bytes + 255) / 256 * 256 ? ", in its padding" : "");
  }
  if (it != s.allocations.end() && p + 4096 > it->second.data)
    return what + ": " + std::to_string(it->second.data - p) + " bytes before the " +
           std::to_string(it->second.bytes) + "-byte allocation at " + address(it->second.data);
  if (Region* r = find_region(s, p))
    return what + ": runs past the end of the block's " + r->name + " (" +
           std::to_string(r->bytes) + " bytes)";
  return what + ": not device memory (no live allocation, not shared memory)";
}

// ---- racecheck --------------------------------------------------------------------

std::string thread_text(std::uint16_t thread) { return coords(unflatten(thread, state().block)); }

// Whether a collective of warp `warp` completed after `since` named both lanes.
bool warp_ordered(const State& s, unsigned warp, std::uint32_t since, unsigned lane_a,
                  unsigned lane_b) {
  const auto& masks = s.collectives[warp];
  const unsigned both = (1u << lane_a) | (1u << lane_b);
  for (std::size_t k = since; k < masks.size(); ++k)
    if ((masks[k] & both) == both) return true;
  return false;
}

// Whether `earlier` and an access by `thread` now are unordered (a hazard).
// `shared` memory lives one block; device memory spans the launch.
bool unordered(const State& s, const Mark& earlier, std::uint16_t thread, bool shared) {
  if (earlier.launch != s.launch) return false;
  if (earlier.block != s.block_serial)  // another block: of this launch, or of this cluster
    return !shared ||
           (earlier.cluster == s.cluster_serial && earlier.cluster_epoch == s.cluster_epoch);
  if (earlier.epoch != s.epoch || earlier.thread == thread) return false;
  const unsigned wa = earlier.thread / 32u, wb = thread / 32u;
  if (wa == wb && warp_ordered(s, wa, earlier.wseq, earlier.thread % 32u, thread % 32u))
    return false;
  return true;
}

[[noreturn]] void report_race(const char* kind, const char* memory, const std::byte* p,
                              const Allocation* a, const Region* r, const Mark& earlier,
                              const char* earlier_verb, const std::source_location& where,
                              const char* verb, bool others) {
  const State& s = state();
  const uint3 me = threadIdx;
  std::string text = "racecheck: a " + std::string(kind) + " hazard on " + memory + " at " +
                     address(p) + " (" + where_in(a, r, p) + "): thread " + coords(me);
  const bool other_block = earlier.block != s.block_serial;
  if (other_block) text += " of block " + coords(blockIdx);
  text += std::string(" ") + verb + " it at " + site(where) + ", and thread " +
          thread_text(earlier.thread);
  if (other_block) text += " of block " + coords(unflatten(earlier.block_linear, s.grid));
  text += std::string(" ") + earlier_verb + " it at " + site(earlier.where);
  if (others) text += " (other threads too)";
  text += !other_block ? ", with no __syncthreads between them and no warp collective naming both"
          : r          ? ", blocks of one cluster with no cluster_sync between them"
                       : ", blocks of one launch that nothing orders";
  text += " (reported whatever values were written)";
  fail(std::move(text));
}

void race(Cell& c, Access kind, std::uint16_t thread, const std::byte* p, const Allocation* a,
          const Region* r, const std::source_location& where) {
  State& s = state();
  const bool shared = r != nullptr;
  const char* memory = shared ? "shared memory" : "global memory";
  const Mark now{s.launch,       s.block_serial,
                 s.epoch,        static_cast<std::uint32_t>(s.collectives[thread / 32u].size()),
                 s.block_linear, thread,
                 where,          s.cluster_serial,
                 s.cluster_epoch};
  if (kind == Access::load) {
    if (unordered(s, c.write, thread, shared))
      report_race("read-after-write", memory, p, a, r, c.write, "wrote", where, "reads", false);
    const bool same_interval =
        c.read.launch == s.launch && c.read.block == s.block_serial && c.read.epoch == s.epoch;
    if (c.read.launch == s.launch && c.read.block != s.block_serial) c.other_blocks_read = true;
    if (c.read.launch != s.launch) c.other_blocks_read = false;
    if (!same_interval) {
      c.others_read = c.others_in_warps = false;
      c.others_lanes = c.others_wseq = 0;
    } else if (c.read.thread != thread) {  // the last read becomes one of the others
      const std::uint32_t warp = c.read.thread / 32u;
      if (c.others_read && c.others_warp != warp) c.others_in_warps = true;
      c.others_warp = warp;
      c.others_read = true;
      c.other = c.read;
      c.others_lanes |= 1u << (c.read.thread % 32u);
      c.others_wseq = std::max(c.others_wseq, c.read.wseq);
    }
    c.read = now;
    return;
  }
  // a store
  if (unordered(s, c.write, thread, shared))
    report_race("write-after-write", memory, p, a, r, c.write, "wrote", where, "writes", false);
  if (unordered(s, c.read, thread, shared))
    report_race("write-after-read", memory, p, a, r, c.read, "read", where, "writes", false);
  if (!shared && c.read.launch == s.launch && c.other_blocks_read)
    report_race("write-after-read", memory, p, a, r, c.read, "read", where, "writes", true);
  if (c.read.launch == s.launch && c.read.block == s.block_serial && c.read.epoch == s.epoch &&
      c.others_read) {
    // the readers besides the last: this thread's own reads are ordered; the
    // others only if they are all in this warp and a collective completed
    // after the latest of them named their lanes and this one
    const unsigned warp = thread / 32u, me = 1u << (thread % 32u);
    const std::uint32_t others = c.others_lanes & ~me;
    const bool ordered = !c.others_in_warps && c.others_warp == warp &&
                         (others == 0 || std::any_of(s.collectives[warp].begin() + c.others_wseq,
                                                     s.collectives[warp].end(), [&](unsigned m) {
                                                       return (m & (others | me)) == (others | me);
                                                     }));
    if (!ordered)
      report_race("write-after-read", memory, p, a, r, c.other, "read", where, "writes", true);
  }
  // the reads before this write are ordered with it; later accesses are
  // checked against the write (a chain of ordered pairs is ordered)
  c.read = Mark{};
  c.others_read = c.others_in_warps = c.other_blocks_read = false;
  c.others_lanes = c.others_wseq = 0;
  c.write = now;
}

}  // namespace

namespace checks {

void allocated(const void* data, std::size_t bytes) {
  State& s = state();
  Allocation a;
  a.data = static_cast<std::byte*>(const_cast<void*>(data));
  a.bytes = bytes;
  a.written.assign(bytes, 0);
  a.unwritten = bytes;
  s.last = nullptr;
  const auto lo = reinterpret_cast<std::uintptr_t>(data);
  // addresses reused: no longer freed
  s.freed.erase(s.freed.lower_bound(lo), s.freed.lower_bound(lo + bytes));
  if (auto f = s.freed.lower_bound(lo);
      f != s.freed.begin() && std::prev(f)->first + std::prev(f)->second > lo)
    s.freed.erase(std::prev(f));
  s.allocations[lo] = std::move(a);
}

void freed(const void* data) {
  State& s = state();
  s.last = nullptr;
  const auto it = s.allocations.find(reinterpret_cast<std::uintptr_t>(data));
  if (it == s.allocations.end()) return;
  if (s.freed.size() >= kFreed) s.freed.clear();
  s.freed[it->first] = it->second.bytes;
  s.allocations.erase(it);
}

void written(const void* p, std::size_t bytes) {
  State& s = state();
  const auto* b = static_cast<const std::byte*>(p);
  while (bytes > 0) {
    Allocation* a = find_allocation(s, b);
    if (!a) return;  // the runtime has checked the range already
    const std::size_t at = static_cast<std::size_t>(b - a->data);
    const std::size_t n = std::min(bytes, a->bytes - at);
    if (a->unwritten > 0)
      for (std::size_t k = at; k < at + n; ++k)
        if (!a->written[k]) {
          a->written[k] = 1;
          --a->unwritten;
        }
    b += n;
    bytes -= n;
  }
}

std::string unwritten(const void* p, std::size_t bytes) {
  if (!options().initcheck) return {};
  State& s = state();
  const auto* b = static_cast<const std::byte*>(p);
  const Allocation* a = find_allocation(s, b);
  if (!a || a->unwritten == 0) return {};
  const std::size_t at = static_cast<std::size_t>(b - a->data);
  for (std::size_t k = at; k < std::min(at + bytes, a->bytes); ++k)
    if (!a->written[k]) return where_in(a, nullptr, a->data + k);
  return {};
}

std::vector<std::vector<std::uint8_t>> save_written(const std::vector<memory::Span>& spans) {
  State& s = state();
  std::vector<std::vector<std::uint8_t>> out;
  for (const memory::Span& sp : spans) {
    const Allocation* a = find_allocation(s, sp.data);
    out.push_back(a ? a->written : std::vector<std::uint8_t>{});
  }
  return out;
}

void restore_written(const std::vector<memory::Span>& spans,
                     const std::vector<std::vector<std::uint8_t>>& saved) {
  State& s = state();
  for (std::size_t k = 0; k < spans.size(); ++k) {
    Allocation* a = find_allocation(s, spans[k].data);
    if (!a || a->written.size() != saved[k].size()) continue;
    a->written = saved[k];
    a->unwritten = static_cast<std::size_t>(std::count(a->written.begin(), a->written.end(), 0));
  }
}

void begin_launch(const char* kernel, dim3 grid, dim3 block, void* dynamic_lo,
                  std::size_t dynamic_bytes, bool sampled, StaticSharedBudget static_budget) {
  State& s = state();
  s.kernel = kernel;
  s.static_budget = std::move(static_budget);
  s.sampled = sampled;
  s.grid = grid;
  s.block = block;
  ++s.launch;
  Region& r = s.dynamics;
  r.lo = static_cast<std::byte*>(dynamic_lo);
  r.bytes = dynamic_bytes;
  if (r.stamp.size() < dynamic_bytes) r.stamp.resize(dynamic_bytes, 0);
  if (options().racecheck && r.cells.size() < (dynamic_bytes + kGranule - 1) / kGranule)
    r.cells.resize((dynamic_bytes + kGranule - 1) / kGranule);
}

void begin_block(std::uint32_t block_linear, unsigned threads, unsigned rank) {
  State& s = state();
  if (s.cluster_blocks) {
    s.block_serial = s.first_serial + rank;
    // the arena's marks are a returned block's (a parked one's are in its
    // window): this block's shared memory begins unwritten and unaccessed
    std::fill(s.dynamics.stamp.begin(), s.dynamics.stamp.end(), 0u);
    std::fill(s.dynamics.cells.begin(), s.dynamics.cells.end(), Cell{});
    s.windows[rank].unborn = false;
  } else {
    s.block_serial = ++s.next_serial;
    ++s.cluster_serial;  // a block alone is a cluster of one
    s.cluster_epoch = 0;
  }
  s.rank = rank;
  s.block_linear = block_linear;
  s.epoch = 0;
  s.collectives.assign((threads + 31) / 32, {});
  s.block_static = 0;
  s.running = true;
}

void end_block() {
  State& s = state();
  s.running = false;
  if (s.cluster_blocks) s.windows[s.rank].gone = true;
}

void barrier() { ++state().epoch; }

void begin_cluster(unsigned blocks) {
  State& s = state();
  s.cluster_blocks = blocks;
  ++s.cluster_serial;
  s.cluster_epoch = 0;
  s.first_serial = s.next_serial + 1;
  s.next_serial += blocks;
  const std::size_t bytes = s.dynamics.bytes, lines = (bytes + 15) / 16;
  s.window_bytes.assign(lines * blocks, Line16{});
  memory::poison(s.window_bytes.data(), lines * blocks * 16);
  s.windows.assign(blocks, Region{});
  for (unsigned r = 0; r < blocks; ++r) {
    Region& w = s.windows[r];
    w.lo = s.window_bytes.empty() ? nullptr : s.window_bytes[r * lines].b;
    w.bytes = bytes;
    w.name = window_name(r);
    w.stamp.assign(bytes, 0);
    if (options().racecheck) w.cells.assign((bytes + kGranule - 1) / kGranule, Cell{});
    w.owner = s.first_serial + r;
    w.unborn = true;
  }
  s.parked.assign(blocks, Parked{});
}

}  // namespace checks

namespace {

// park_block and resume_block: the running block's place and its dynamic
// shared memory's marks change places with the parked block's (the bytes
// are copied by the caller, in its direction).
void exchange(State& s, Parked& p, Region& window) {
  std::swap(s.block_serial, p.serial);
  std::swap(s.block_linear, p.linear);
  std::swap(s.epoch, p.epoch);
  std::swap(s.collectives, p.collectives);
  std::swap(s.block_static, p.block_static);
  std::swap(window.stamp, s.dynamics.stamp);
  std::swap(window.cells, s.dynamics.cells);
}

}  // namespace

namespace checks {

void park_block(unsigned rank) {
  State& s = state();
  Parked& p = s.parked[rank];
  Region& w = s.windows[rank];
  if (w.bytes) std::memcpy(w.lo, s.dynamics.lo, w.bytes);
  exchange(s, p, w);
  p.statics.clear();
  for (auto& [lo, r] : s.statics) {
    if (r.opened != p.serial) continue;
    SavedStatic& saved = p.statics[lo];
    saved.bytes.assign(r.lo, r.lo + r.bytes);
    saved.stamp.swap(r.stamp);
    saved.cells.swap(r.cells);
    r.stamp.assign(r.bytes, 0);
    r.opened = 0;
  }
  s.running = false;
}

void resume_block(unsigned rank) {
  State& s = state();
  Parked& p = s.parked[rank];
  Region& w = s.windows[rank];
  if (w.bytes) std::memcpy(s.dynamics.lo, w.lo, w.bytes);
  exchange(s, p, w);
  s.rank = rank;
  for (auto& [lo, saved] : p.statics) {
    Region& r = s.statics.at(lo);
    std::memcpy(r.lo, saved.bytes.data(), r.bytes);
    r.stamp.swap(saved.stamp);
    r.cells.swap(saved.cells);
    r.opened = s.block_serial;
  }
  p.statics.clear();
  s.running = true;
}

void cluster_barrier() {
  State& s = state();
  ++s.cluster_epoch;
  for (Parked& p : s.parked) ++p.epoch;  // a cluster barrier is each block's barrier too
}

void end_cluster() {
  State& s = state();
  s.cluster_blocks = 0;
  s.windows.clear();
  s.parked.clear();
}

void warp_collective(unsigned warp, unsigned mask) { state().collectives[warp].push_back(mask); }

}  // namespace checks

void* shared_static(void* storage, std::size_t bytes) {
  State& s = state();
  if (!s.running) std::abort();  // shared memory outside a kernel
  const auto lo = reinterpret_cast<std::uintptr_t>(storage);
  auto it = s.statics.find(lo);
  if (it == s.statics.end()) {
    Region r;
    r.lo = static_cast<std::byte*>(storage);
    r.bytes = bytes;
    r.name = "static shared memory";
    r.stamp.assign(bytes, 0);
    it = s.statics.emplace(lo, std::move(r)).first;
  }
  Region& r = it->second;
  if (r.opened != s.block_serial) {  // the first thread of this block to get here
    r.opened = s.block_serial;
    s.block_static += bytes;
    if (s.block_static > s.static_budget.bytes)
      fail(std::to_string(s.block_static) + " bytes of static shared memory declared, " +
           "beside the dynamic: " + s.static_budget.why + " " +
           std::to_string(s.static_budget.bytes) + " for it (a GPU refuses the launch)");
    memory::poison(storage, bytes);
    if (options().racecheck && r.cells.size() < (bytes + kGranule - 1) / kGranule)
      r.cells.resize((bytes + kGranule - 1) / kGranule);
  }
  return storage;
}

namespace detail {

void* cluster_map(void* pv, unsigned rank, const std::source_location& where) {
  State& s = state();
  if (!s.running) std::abort();  // outside a kernel
  const unsigned blocks = s.cluster_blocks ? s.cluster_blocks : 1;
  auto* p = static_cast<std::byte*>(pv);
  if (rank >= blocks)
    fail("cluster_peer: rank " + std::to_string(rank) + " in a cluster of " +
         std::to_string(blocks) + " blocks, by thread " + coords(threadIdx) + " at " + site(where));
  if (!s.dynamics.lo || p < s.dynamics.lo || p > s.dynamics.lo + s.dynamics.bytes)
    fail("cluster_peer: " + address(p) +
         " is not in this block's dynamic shared memory (the emulator maps only that), by "
         "thread " +
         coords(threadIdx) + " at " + site(where));
  if (rank == s.rank) return p;
  return s.windows[rank].lo + (p - s.dynamics.lo);
}

void access(const void* pv, std::size_t n, std::size_t align, Access kind,
            const std::source_location& where) {
  State& s = state();
  if (!s.running) std::abort();  // a device access outside a kernel
  const Options& o = options();
  const auto* p = static_cast<const std::byte*>(pv);
  const char* verb = kind == Access::load    ? "a load"
                     : kind == Access::store ? "a store"
                                             : "an atomic";
  if (o.memcheck && reinterpret_cast<std::uintptr_t>(p) % align != 0)
    fail("memcheck: " + std::string(verb) + " of " + std::to_string(n) + " bytes at " + address(p) +
         ", not aligned to " + std::to_string(align) + " bytes, by thread " + coords(threadIdx) +
         " at " + site(where));
  Allocation* a = find_allocation(s, p);
  Region* r = nullptr;
  if (!a) {
    r = find_region(s, p);
    if (r && p + n > r->lo + r->bytes) r = nullptr;
    if (!r && !o.memcheck) return;
    if (!r)
      fail("memcheck: " + outside(s, p, n, verb) + ", by thread " + coords(threadIdx) + " at " +
           site(where));
    if (o.memcheck && (r->gone || r->unborn))
      fail("memcheck: " + std::string(verb) + " of " + std::to_string(n) + " bytes at " +
           address(p) + " (" + where_in(nullptr, r, p) + "), by thread " + coords(threadIdx) +
           " at " + site(where) +
           (r->gone ? ", after that block returned (a cluster_sync after the last access keeps "
                      "a block's shared memory until its peers are done)"
                    : ", before that block began (a cluster_sync before the first access "
                      "waits for every block of the cluster to begin)"));
  } else if (p + n > a->data + a->bytes) {
    if (!o.memcheck) return;
    fail("memcheck: " + outside(s, p, n, verb) + ", by thread " + coords(threadIdx) + " at " +
         site(where));
  }
  const std::uint16_t thread =
      static_cast<std::uint16_t>(threadIdx.x + s.block.x * (threadIdx.y + s.block.y * threadIdx.z));
  if (o.traffic) traffic::access(p, n, r != nullptr, kind != Access::load, thread, where);
  // initcheck (the written flags are kept even when it is off)
  const bool init = o.initcheck && !s.sampled;
  if (a) {
    const std::size_t at = static_cast<std::size_t>(p - a->data);
    if (a->unwritten > 0) {
      if (init && kind != Access::store) {
        for (std::size_t k = at; k < at + n; ++k)
          if (!a->written[k])
            fail("initcheck: thread " + coords(threadIdx) + " loads " + std::to_string(n) +
                 " bytes at " + address(p) + " (" + where_in(a, nullptr, p) + ") at " +
                 site(where) + ", and byte " + std::to_string(k) +
                 " was never written (no cudaMemcpy, cudaMemset or kernel store since "
                 "cudaMalloc)");
      }
      if (kind != Access::load)
        for (std::size_t k = at; k < at + n; ++k)
          if (!a->written[k]) {
            a->written[k] = 1;
            --a->unwritten;
          }
    }
  } else {
    const std::size_t at = static_cast<std::size_t>(p - r->lo);
    const std::uint32_t owner = owner_of(s, *r);
    if (init && kind != Access::store) {
      for (std::size_t k = at; k < at + n; ++k)
        if (r->stamp[k] != owner)
          fail("initcheck: thread " + coords(threadIdx) + " loads " + std::to_string(n) +
               " bytes of shared memory at " + address(p) + " (" + where_in(nullptr, r, p) +
               ") at " + site(where) + ", and byte " + std::to_string(k) +
               (r->owner ? " was not written since the block that owns it began"
                         : " was not written by any thread of this block"));
    }
    if (kind != Access::load) std::fill(r->stamp.begin() + at, r->stamp.begin() + at + n, owner);
  }
  // racecheck
  if (!o.racecheck || kind == Access::atomic) return;
  std::vector<Cell>* cells = nullptr;
  std::size_t at = 0;
  if (a) {
    if (a->cells.empty()) a->cells.resize((a->bytes + kGranule - 1) / kGranule);
    cells = &a->cells;
    at = static_cast<std::size_t>(p - a->data);
  } else {
    if (r->cells.size() < (r->bytes + kGranule - 1) / kGranule)
      r->cells.resize((r->bytes + kGranule - 1) / kGranule);
    cells = &r->cells;
    at = static_cast<std::size_t>(p - r->lo);
  }
  for (std::size_t g = at / kGranule; g <= (at + n - 1) / kGranule; ++g)
    race((*cells)[g], kind, thread, p, a, r, where);
}

}  // namespace detail

}  // namespace scaleref::emu
