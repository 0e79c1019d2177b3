#include "runtime/ethosu/npu_model/mlw_decoder.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

constexpr uint32_t kZdivEndOfStream = 7;
constexpr uint32_t kZdivNoZeroRuns = 6;
constexpr uint32_t kWdivUncompressed = 7;
constexpr uint32_t kMaxWeightIndex = 512;     // weights are 9 bits
constexpr uint32_t kMaxQuotient = 1u << 20;   // far beyond any real stream; guards the arithmetic

class BitReader {
 public:
  BitReader(const uint8_t* data, size_t size) : data_(data), bits_(size * 8) {}

  // The next `n` (0..32) bits, first bit lowest; past the end sets overrun() and gives 0s.
  uint32_t take(unsigned n) {
    uint32_t v = 0;
    for (unsigned i = 0; i < n; ++i, ++pos_) {
      if (pos_ >= bits_) {
        overrun_ = true;
        continue;
      }
      v |= uint32_t{(data_[pos_ >> 3] >> (pos_ & 7)) & 1u} << i;
    }
    return v;
  }
  void align_to_byte() {
    pos_ = (pos_ + 7) & ~size_t{7};
  }
  bool at_end() const {
    return pos_ >= bits_;
  }
  bool overrun() const {
    return overrun_;
  }
  size_t position() const {
    return pos_;
  }

 private:
  const uint8_t* data_;
  size_t bits_;
  size_t pos_ = 0;
  bool overrun_ = false;
};

// The Golomb-Rice quotients one chunk carries for one sequence, and the carry of an
// unfinished quotient into the next chunk.
struct Quotients {
  uint32_t q[12];
  int count = 0;
  uint32_t carry = 0;
};

// Zero runs: `bits` unary bits, a 1 adds one to the current quotient, a 0 ends it.
void read_zero_quotients(BitReader& br, unsigned bits, Quotients* z) {
  const uint32_t unary = br.take(bits);
  z->count = 0;
  uint32_t run = z->carry;
  for (unsigned i = 0; i < bits; ++i) {
    if ((unary >> i) & 1u) {
      ++run;
    } else {
      z->q[z->count++] = run;
      run = 0;
    }
  }
  z->carry = run;
}

// Weights: a 1 in the first part marks a quotient step of at least 1, the matching bit of
// the second part another step; a quotient ends with a step below 2, or always when
// truncated. Uncompressed slices have no unary parts: every symbol's quotient is 0. The
// zero runs' unary bits sit between the two parts, so this reads the second part only.
void read_weight_quotients(BitReader& br, uint32_t first, unsigned symbols, bool truncated, Quotients* w) {
  unsigned second_bits = 0;
  for (unsigned i = 0; i < symbols; ++i) {
    second_bits += (first >> i) & 1u;
  }
  uint32_t second = br.take(second_bits);
  w->count = 0;
  uint32_t q = w->carry;
  for (unsigned i = 0; i < symbols; ++i) {
    uint32_t step = 0;
    if ((first >> i) & 1u) {
      step = 1 + (second & 1u);
      second >>= 1;
    }
    q += step;
    if (step < 2 || truncated) {
      w->q[w->count++] = q;
      q = 0;
    }
  }
  w->carry = q;
}

}  // namespace

Status decode_mlw(const uint8_t* data, size_t size, int16_t* out, size_t wanted, size_t* count,
                  MlwScratch* scratch) {
  *count = 0;
  BitReader br(data, size);
  bool need_palette = true;
  int16_t palette[32] = {};
  uint32_t palette_size = 0;
  uint32_t palette_bits = 2;
  uint32_t direct_offset = 0;
  size_t n = 0;

  while (n < wanted && !br.at_end()) {
    const size_t slice_start = br.position();
    const uint32_t zdiv = br.take(3);
    if (zdiv == kZdivEndOfStream) {
      br.align_to_byte();
      need_palette = true;
      continue;
    }
    if (zdiv > 3 && zdiv != kZdivNoZeroRuns) {
      return Status::error(Fault::kBadWeights, "weight stream slice at bit %zu has the reserved ZDIV %u", slice_start,
                           static_cast<unsigned>(zdiv));
    }
    const bool zero_runs = zdiv != kZdivNoZeroRuns;
    const uint32_t slice_weights = br.take(15) + 1;
    uint32_t wdiv = br.take(3);
    const bool truncated = br.take(1) != 0;
    const bool new_palette = br.take(1) != 0;
    if (need_palette && !new_palette) {
      return Status::error(Fault::kBadWeights, "weight stream slice at bit %zu lacks the palette a first slice needs",
                           slice_start);
    }
    need_palette = false;
    if (new_palette) {
      direct_offset = br.take(5);
      palette_size = br.take(5);
      palette_size += palette_size > 0 ? 1 : 0;
      palette_bits = br.take(3) + 2;
      for (uint32_t i = 0; i < palette_size; ++i) {
        palette[i] = static_cast<int16_t>(br.take(palette_bits));
      }
    }
    const bool uncompressed = wdiv == kWdivUncompressed;
    if (uncompressed) {
      // Only remainders: as wide as the palette index, or PALBITS without a palette.
      wdiv = 0;
      if (palette_size > 0) {
        while ((1u << wdiv) < palette_size) ++wdiv;
      } else {
        wdiv = palette_bits;
      }
    } else if (wdiv > 5) {
      return Status::error(Fault::kBadWeights, "weight stream slice at bit %zu has the reserved WDIV %u", slice_start,
                           static_cast<unsigned>(wdiv));
    }
    if (br.overrun()) {
      return Status::error(Fault::kBadWeights, "weight stream of %zu bytes ends inside the slice header at bit %zu",
                           size, slice_start);
    }

    // The body: chunks of quotients, each followed by the previous chunk's remainders.
    const uint32_t slice_runs = zero_runs ? slice_weights + (new_palette ? 1 : 0) : 0;
    const unsigned weight_symbols = uncompressed && wdiv > 5 ? 8 : 12;
    const unsigned zero_bits = zdiv < 3 ? 12 : 8;
    uint32_t w_pos = 0, z_pos = 0;            // quotients read
    uint32_t w_done = 0, z_done = 0;          // values completed
    Quotients w, z, w_prev, z_prev;
    bool w_prev_on = false, z_prev_on = false;
    do {
      const int64_t lead = zero_runs ? int64_t{w_pos} - z_pos : 0;
      const bool w_on = (!zero_runs || lead < 8) && w_pos < slice_weights;
      const bool z_on = zero_runs && lead >= 0 && z_pos < slice_runs;
      // Chunk order: the weights' first unary part, the zero runs' unary part, the
      // weights' second unary part.
      const uint32_t w_first = w_on && !uncompressed ? br.take(12) : 0;
      if (z_on) {
        read_zero_quotients(br, zero_bits, &z);
        z_pos += z.count;
      }
      if (w_on) {
        read_weight_quotients(br, w_first, weight_symbols, truncated, &w);
        w_pos += w.count;
      }
      if (w.carry > kMaxQuotient || z.carry > kMaxQuotient) {
        return Status::error(Fault::kBadWeights, "weight stream quotient overflows at bit %zu", br.position());
      }
      if (w_prev_on) {
        for (int i = 0; i < w_prev.count && w_done < slice_weights; ++i) {
          const uint32_t index = (w_prev.q[i] << wdiv) + br.take(wdiv);
          if (w_prev.q[i] >= kMaxWeightIndex || index >= kMaxWeightIndex) {
            return Status::error(Fault::kBadWeights, "weight stream index %u at bit %zu exceeds 9 bits",
                                 static_cast<unsigned>(index),
                                 br.position());
          }
          scratch->weights[w_done++] = static_cast<uint16_t>(index);
        }
      }
      if (z_prev_on) {
        for (int i = 0; i < z_prev.count && z_done < slice_runs; ++i) {
          scratch->zero_runs[z_done++] = (z_prev.q[i] << zdiv) + br.take(zdiv);
        }
      }
      w_prev_on = w_on;
      z_prev_on = z_on;
      w_prev = w;
      z_prev = z;
      if (br.overrun()) {
        return Status::error(Fault::kBadWeights, "weight stream of %zu bytes ends inside the slice at bit %zu", size,
                             slice_start);
      }
    } while (w_prev_on || z_prev_on);
    if (w_done != slice_weights || z_done != slice_runs) {
      return Status::error(Fault::kBadWeights, "weight stream slice at bit %zu decodes %u of %u weights", slice_start,
                           static_cast<unsigned>(w_done), static_cast<unsigned>(slice_weights));
    }

    // Weights with their zero runs, in order.
    auto emit_zeros = [&](uint32_t zeros) {
      for (uint32_t k = 0; k < zeros && n < wanted; ++k) out[n++] = 0;
    };
    uint32_t run = 0;
    if (zero_runs && new_palette) {
      emit_zeros(scratch->zero_runs[run++]);
    }
    for (uint32_t i = 0; i < slice_weights && n < wanted; ++i) {
      const uint32_t index = scratch->weights[i];
      const int32_t v = index < palette_size ? palette[index] : static_cast<int32_t>(index - palette_size + direct_offset);
      out[n++] = static_cast<int16_t>((v & 1) ? -(v >> 1) : (v >> 1));
      if (zero_runs) {
        emit_zeros(scratch->zero_runs[run++]);
      }
    }
  }
  *count = n;
  return Status();
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
