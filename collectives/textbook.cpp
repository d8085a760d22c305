#include "collectives/textbook.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace railgauge::collectives {
namespace {

// [offset, offset + count) in elements.
struct Segment {
  std::size_t offset = 0, count = 0;
};
using Segments = std::vector<Segment>;

std::size_t total_count(const Segments &s) {
  std::size_t n = 0;
  for (const auto &seg : s)
    n += seg.count;
  return n;
}

void append(Segments &s, Segment seg) {
  if (seg.count == 0)
    return;
  if (!s.empty() && s.back().offset + s.back().count == seg.offset)
    s.back().count += seg.count; // contiguous: one segment, so no packing is needed
  else
    s.push_back(seg);
}

int largest_power_of_two_at_most(int n) {
  int p = 1;
  while (p * 2 <= n)
    p *= 2;
  return p;
}

// One call's state: the transport, the element type, and helpers that move segments of `buf`.
class Run {
public:
  Run(Transport &t, std::byte *buf, DType type, RedOp op)
      : t_(t), buf_(buf), type_(type), op_(op), elt_(element_bytes(type)) {}

  int rank() const { return t_.rank(); }
  int size() const { return t_.size(); }
  std::byte *at(std::size_t offset) const { return buf_ + offset * elt_; }

  // Exchanges segment lists with one peer: `out` to `to`, `in` from `from`. With `reduce`, the
  // received data is reduced into `in` instead of overwriting it.
  void exchange(int to, const Segments &out, int from, const Segments &in, bool reduce) {
    const std::size_t out_n = total_count(out), in_n = total_count(in);
    std::unique_ptr<Transport::Scratch> out_pack, in_pack;
    const std::byte *send = out_n ? at(out.front().offset) : buf_;
    if (out.size() > 1) {
      out_pack = t_.scratch(out_n * elt_);
      pack(out, out_pack->data());
      send = out_pack->data();
    }
    std::byte *recv = in_n ? at(in.front().offset) : buf_;
    if (in.size() > 1 || reduce) {
      in_pack = t_.scratch(in_n * elt_);
      recv = in_pack->data();
    }
    if (to >= 0 && from >= 0)
      t_.sendrecv(to, send, out_n * elt_, from, recv, in_n * elt_);
    else if (to >= 0)
      t_.send(to, send, out_n * elt_);
    else if (from >= 0)
      t_.recv(from, recv, in_n * elt_);
    if (in_pack)
      unpack(in, in_pack->data(), reduce);
  }
  void send(int to, const Segments &out) { exchange(to, out, -1, {}, false); }
  void recv(int from, const Segments &in, bool reduce) { exchange(-1, {}, from, in, reduce); }

private:
  void pack(const Segments &s, std::byte *dst) {
    for (const auto &seg : s) {
      t_.copy(dst, at(seg.offset), seg.count * elt_);
      dst += seg.count * elt_;
    }
  }
  void unpack(const Segments &s, const std::byte *src, bool reduce) {
    for (const auto &seg : s) {
      if (reduce)
        t_.reduce(type_, op_, at(seg.offset), src, seg.count);
      else
        t_.copy(at(seg.offset), src, seg.count * elt_);
      src += seg.count * elt_;
    }
  }

  Transport &t_;
  std::byte *buf_;
  DType type_;
  RedOp op_;
  std::size_t elt_;
};

// Block b of `count` elements split into `blocks` near-equal blocks.
Segment balanced_block(std::size_t count, int blocks, int b) {
  const auto lo = count * static_cast<std::size_t>(b) / static_cast<std::size_t>(blocks);
  const auto hi = count * static_cast<std::size_t>(b + 1) / static_cast<std::size_t>(blocks);
  return {lo, hi - lo};
}

Segments one(Segment s) {
  Segments out;
  append(out, s);
  return out;
}

int mod(int a, int n) { return ((a % n) + n) % n; }

// Ring reduce-scatter over blocks(b): afterwards this rank holds the reduced block(rank).
template <class Block> void ring_reduce_scatter(Run &run, Block block) {
  const int n = run.size(), r = run.rank();
  for (int s = 0; s < n - 1; ++s)
    run.exchange(mod(r + 1, n), one(block(mod(r - s - 1, n))), mod(r - 1, n),
                 one(block(mod(r - s - 2, n))), true);
}

// Ring all-gather over blocks(b), this rank starting with block(rank).
template <class Block> void ring_all_gather(Run &run, Block block) {
  const int n = run.size(), r = run.rank();
  for (int s = 0; s < n - 1; ++s)
    run.exchange(mod(r + 1, n), one(block(mod(r - s, n))), mod(r - 1, n),
                 one(block(mod(r - s - 1, n))), false);
}

// The fold of the recursive algorithms for n that is not a power of two (see textbook.h).
struct Fold {
  int n, p, r;
  bool extra() const { return r >= p; }        // hands its data to r - p and waits
  bool has_extra() const { return r < n - p; } // holds the data of r + p
  int partner() const { return extra() ? r - p : r + p; }
};

// A recursive all_reduce with the fold: each extra rank hands its data to its partner and waits
// for the result; `on_p_ranks(f, all)` reduces over the p active ranks in between.
template <class OnPRanks> void all_reduce_folded(Run &run, std::size_t count, OnPRanks on_p_ranks) {
  const Fold f{run.size(), largest_power_of_two_at_most(run.size()), run.rank()};
  const Segments all = one({0, count});
  if (f.extra()) {
    run.send(f.partner(), all);
    run.recv(f.partner(), all, false);
    return;
  }
  if (f.has_extra())
    run.recv(f.partner(), all, true);
  on_p_ranks(f, all);
  if (f.has_extra())
    run.send(f.partner(), all);
}

void all_reduce_recursive_doubling(Run &run, std::size_t count) {
  all_reduce_folded(run, count, [&](const Fold &f, const Segments &all) {
    for (int d = 1; d < f.p; d <<= 1)
      run.exchange(f.r ^ d, all, f.r ^ d, all, true);
  });
}

// Over the p active ranks: a reduce-scatter by recursive halving, then an all-gather by
// recursive doubling, of p near-equal blocks.
void all_reduce_halving_doubling(Run &run, std::size_t count) {
  all_reduce_folded(run, count, [&](const Fold &f, const Segments &) {
    // Blocks [a, b) of p near-equal blocks, as one segment.
    auto window = [&](int a, int b) {
      const auto lo = balanced_block(count, f.p, a).offset;
      const auto hi = b < f.p ? balanced_block(count, f.p, b).offset : count;
      return one({lo, hi - lo});
    };
    int lo = 0, hi = f.p;
    for (int d = f.p / 2; d >= 1; d /= 2) {
      const int partner = f.r ^ d, mid = lo + d;
      const bool lower = (f.r & d) == 0;
      if (lower) {
        run.exchange(partner, window(mid, hi), partner, window(lo, mid), true);
        hi = mid;
      } else {
        run.exchange(partner, window(lo, mid), partner, window(mid, hi), true);
        lo = mid;
      }
    }
    for (int d = 1; d < f.p; d <<= 1) {
      const int mine = f.r & ~(d - 1), theirs = (f.r ^ d) & ~(d - 1);
      run.exchange(f.r ^ d, window(mine, mine + d), f.r ^ d, window(theirs, theirs + d), false);
    }
  });
}

// The blocks (of n equal blocks of `count`) that the active ranks [a, b) hold after the fold:
// each its own and that of its extra rank.
Segments super_blocks(const Fold &f, std::size_t count, int a, int b) {
  Segments s;
  for (int k = a; k < b; ++k)
    append(s, {static_cast<std::size_t>(k) * count, count});
  for (int k = a; k < b; ++k)
    if (k + f.p < f.n)
      append(s, {static_cast<std::size_t>(k + f.p) * count, count});
  return s;
}

void all_gather_recursive_doubling(Run &run, std::size_t count) {
  const Fold f{run.size(), largest_power_of_two_at_most(run.size()), run.rank()};
  const Segments all = one({0, count * static_cast<std::size_t>(f.n)});
  const auto block = [&](int b) { return one({static_cast<std::size_t>(b) * count, count}); };
  if (f.extra()) {
    run.send(f.partner(), block(f.r));
    run.recv(f.partner(), all, false);
    return;
  }
  if (f.has_extra())
    run.recv(f.partner(), block(f.partner()), false);
  for (int d = 1; d < f.p; d <<= 1) {
    const int mine = f.r & ~(d - 1), theirs = (f.r ^ d) & ~(d - 1);
    run.exchange(f.r ^ d, super_blocks(f, count, mine, mine + d), f.r ^ d,
                 super_blocks(f, count, theirs, theirs + d), false);
  }
  if (f.has_extra())
    run.send(f.partner(), all);
}

void reduce_scatter_recursive_halving(Run &run, std::size_t count) {
  const Fold f{run.size(), largest_power_of_two_at_most(run.size()), run.rank()};
  const Segments all = one({0, count * static_cast<std::size_t>(f.n)});
  const auto block = [&](int b) { return one({static_cast<std::size_t>(b) * count, count}); };
  if (f.extra()) {
    run.send(f.partner(), all);
    run.recv(f.partner(), block(f.r), false);
    return;
  }
  if (f.has_extra())
    run.recv(f.partner(), all, true);
  int lo = 0, hi = f.p;
  for (int d = f.p / 2; d >= 1; d /= 2) {
    const int partner = f.r ^ d, mid = lo + d;
    if ((f.r & d) == 0) {
      run.exchange(partner, super_blocks(f, count, mid, hi), partner,
                   super_blocks(f, count, lo, mid), true);
      hi = mid;
    } else {
      run.exchange(partner, super_blocks(f, count, lo, mid), partner,
                   super_blocks(f, count, mid, hi), true);
      lo = mid;
    }
  }
  if (f.has_extra())
    run.send(f.partner(), block(f.partner()));
}

// Binary tree rooted at 0.
int tree_parent(int r) { return (r - 1) / 2; }
std::vector<int> tree_children(int r, int n) {
  std::vector<int> c;
  for (int k : {2 * r + 1, 2 * r + 2})
    if (k < n)
      c.push_back(k);
  return c;
}
// The blocks of every rank in the subtree rooted at r.
Segments subtree_blocks(int r, int n, std::size_t count) {
  std::vector<int> ranks{r};
  for (std::size_t i = 0; i < ranks.size(); ++i)
    for (int c : tree_children(ranks[i], n))
      ranks.push_back(c);
  std::sort(ranks.begin(), ranks.end());
  Segments s;
  for (int k : ranks)
    append(s, {static_cast<std::size_t>(k) * count, count});
  return s;
}

void tree_reduce_up(Run &run, const Segments &all) {
  for (int c : tree_children(run.rank(), run.size()))
    run.recv(c, all, true);
  if (run.rank() != 0)
    run.send(tree_parent(run.rank()), all);
}

void tree_broadcast_down(Run &run, const Segments &all) {
  if (run.rank() != 0)
    run.recv(tree_parent(run.rank()), all, false);
  for (int c : tree_children(run.rank(), run.size()))
    run.send(c, all);
}

void all_reduce_tree(Run &run, std::size_t count) {
  const Segments all = one({0, count});
  tree_reduce_up(run, all);
  tree_broadcast_down(run, all);
}

void all_gather_tree(Run &run, std::size_t count) {
  const int n = run.size(), r = run.rank();
  for (int c : tree_children(r, n))
    run.recv(c, subtree_blocks(c, n, count), false);
  if (r != 0)
    run.send(tree_parent(r), subtree_blocks(r, n, count));
  tree_broadcast_down(run, one({0, count * static_cast<std::size_t>(n)}));
}

void reduce_scatter_tree(Run &run, std::size_t count) {
  const int n = run.size(), r = run.rank();
  tree_reduce_up(run, one({0, count * static_cast<std::size_t>(n)}));
  if (r != 0)
    run.recv(tree_parent(r), subtree_blocks(r, n, count), false);
  for (int c : tree_children(r, n))
    run.send(c, subtree_blocks(c, n, count));
}

// The ring algorithms: all_reduce is a reduce-scatter then an all-gather over near-equal
// blocks of the one buffer; all_gather and reduce_scatter work on `count`-element blocks.
void all_reduce_ring(Run &run, std::size_t count) {
  const int n = run.size();
  const auto block = [&](int b) { return balanced_block(count, n, b); };
  ring_reduce_scatter(run, block);
  ring_all_gather(run, block);
}

Segment equal_block(std::size_t count, int b) {
  return Segment{static_cast<std::size_t>(b) * count, count};
}

void all_gather_ring(Run &run, std::size_t count) {
  ring_all_gather(run, [count](int b) { return equal_block(count, b); });
}

void reduce_scatter_ring(Run &run, std::size_t count) {
  ring_reduce_scatter(run, [count](int b) { return equal_block(count, b); });
}

// Every algorithm implemented, per kind in the order algorithms_for lists them: the one list
// that names them and runs them.
struct Implemented {
  Kind kind;
  Algorithm algorithm;
  void (*run)(Run &run, std::size_t count);
};
constexpr Implemented kImplemented[] = {
    {Kind::all_reduce, Algorithm::ring, all_reduce_ring},
    {Kind::all_reduce, Algorithm::recursive_doubling, all_reduce_recursive_doubling},
    {Kind::all_reduce, Algorithm::halving_doubling, all_reduce_halving_doubling},
    {Kind::all_reduce, Algorithm::tree, all_reduce_tree},
    {Kind::all_gather, Algorithm::ring, all_gather_ring},
    {Kind::all_gather, Algorithm::recursive_doubling, all_gather_recursive_doubling},
    {Kind::all_gather, Algorithm::tree, all_gather_tree},
    {Kind::reduce_scatter, Algorithm::ring, reduce_scatter_ring},
    {Kind::reduce_scatter, Algorithm::recursive_halving, reduce_scatter_recursive_halving},
    {Kind::reduce_scatter, Algorithm::tree, reduce_scatter_tree},
};

} // namespace

std::string_view to_string(Algorithm a) {
  switch (a) {
  case Algorithm::ring:
    return "ring";
  case Algorithm::recursive_doubling:
    return "recursive_doubling";
  case Algorithm::recursive_halving:
    return "recursive_halving";
  case Algorithm::halving_doubling:
    return "halving_doubling";
  case Algorithm::tree:
    return "tree";
  }
  return "?";
}

std::optional<Algorithm> parse_algorithm(std::string_view text) {
  for (auto a : {Algorithm::ring, Algorithm::recursive_doubling, Algorithm::recursive_halving,
                 Algorithm::halving_doubling, Algorithm::tree})
    if (to_string(a) == text)
      return a;
  return std::nullopt;
}

std::vector<Algorithm> algorithms_for(Kind kind) {
  std::vector<Algorithm> out;
  for (const auto &i : kImplemented)
    if (i.kind == kind)
      out.push_back(i.algorithm);
  return out;
}

void run_textbook(Algorithm algorithm, Kind kind, Transport &transport, std::byte *buf,
                  std::size_t count, DType type, RedOp op) {
  if (transport.size() == 1)
    return; // one rank: the input is already the result
  for (const auto &i : kImplemented) {
    if (i.kind == kind && i.algorithm == algorithm) {
      Run run(transport, buf, type, op);
      return i.run(run, count);
    }
  }
  throw std::invalid_argument(
      fmt::format("no textbook {} algorithm '{}'", to_string(kind), to_string(algorithm)));
}

} // namespace railgauge::collectives
