// Unit and negative tests of the NPU model: the fixed-point scaling against 128-bit
// arithmetic, the mlw decoder against Vela's encoder, a hand-made ADD, and streams that
// are truncated, garbled, use unknown commands or point outside their regions: each must
// give an error naming the command and its byte offset, never a fault.
//
// Argument: the mlw test vectors (make_mlw_vectors.py).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/ethosu/npu_model/mlw_decoder.h"
#include "runtime/ethosu/npu_model/npu_model.h"
#include "runtime/ethosu/npu_model/scaling.h"
#include "runtime/ethosu/npu_model/test/stream_builder.h"
#include "runtime/ethosu/npu_model/weight_layout.h"
#include "runtime/ethosu/npu_model/weight_layout_u85.h"
#include "runtime/testing/files.h"
#include "runtime/testing/test.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace test {
namespace {

// ---- scaling ---------------------------------------------------------------------------
int64_t reference_scale(int64_t value, uint32_t scale, uint32_t shift, RoundMode mode) {
  __int128 product = static_cast<__int128>(value) * scale;
  __int128 rounding = 0;
  if (shift > 0) {
    rounding = static_cast<__int128>(1) << (shift - 1);
    if (mode == RoundMode::kDouble && shift > 31) rounding += value >= 0 ? (1 << 30) : -(1 << 30);
    if (mode == RoundMode::kTruncate) rounding = value < 0 ? (static_cast<__int128>(1) << shift) - 1 : 0;
  }
  return static_cast<int64_t>((product + rounding) >> shift);
}

uint64_t next_random(uint64_t* state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

TEST(Scaling, EqualsWideArithmetic) {
  uint64_t state = 0x9E3779B97F4A7C15ull;
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    const int bits = static_cast<int>(next_random(&state) % 63);
    int64_t value = static_cast<int64_t>(next_random(&state)) >> (63 - bits);
    if (i % 7 == 0) value = i % 2 ? INT32_MIN : INT32_MAX;
    const uint32_t scale = static_cast<uint32_t>(next_random(&state));
    const uint32_t shift = static_cast<uint32_t>(next_random(&state) % 64);
    for (RoundMode mode : {RoundMode::kNatural, RoundMode::kDouble, RoundMode::kTruncate}) {
      const __int128 exact = (static_cast<__int128>(value) * scale) >> shift;
      if (exact > INT64_MAX / 2 || exact < INT64_MIN / 2) continue;  // the hardware's results fit 64 bits
      const int64_t got = scale_and_round(value, scale, shift, mode);
      const int64_t want = reference_scale(value, scale, shift, mode);
      if (got != want) {
        ADD_FAILURE("value %lld scale %u shift %u mode %d: %lld, want %lld", static_cast<long long>(value), scale,
                    shift, static_cast<int>(mode), static_cast<long long>(got), static_cast<long long>(want));
        return;
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 100000);
}

TEST(Scaling, RoundingModes) {
  // 5 / 2 and -5 / 2 under each mode.
  EXPECT_EQ(scale_and_round(5, 1, 1, RoundMode::kNatural), 3);
  EXPECT_EQ(scale_and_round(-5, 1, 1, RoundMode::kNatural), -2);
  EXPECT_EQ(scale_and_round(5, 1, 1, RoundMode::kTruncate), 2);
  EXPECT_EQ(scale_and_round(-5, 1, 1, RoundMode::kTruncate), -2);
  // Double rounding adds 2^30 away from zero only for shifts above 31.
  // -1 * 2^31 / 2^32 = -0.5: natural rounds it up to 0, double away from zero to -1.
  EXPECT_EQ(scale_and_round(-1, 1u << 31, 32, RoundMode::kNatural), 0);
  EXPECT_EQ(scale_and_round(-1, 1u << 31, 32, RoundMode::kDouble), -1);
  EXPECT_EQ(scale_and_round(1, 1u << 31, 32, RoundMode::kDouble), 1);
  EXPECT_EQ(scale_and_round(-1, 1u << 31, 31, RoundMode::kDouble), -1);
}

// ---- the mlw decoder ------------------------------------------------------------------
struct Vector {
  std::vector<int16_t> weights;
  std::vector<uint8_t> stream;
};

std::vector<Vector> read_vectors() {
  std::vector<Vector> out;
  std::vector<uint8_t> b;
  if (etarm::testing::arg_count() < 1 || !etarm::testing::read_file(etarm::testing::arg(0), &b)) return out;
  size_t pos = 0;
  auto u32 = [&]() {
    uint32_t v = 0;
    if (pos + 4 <= b.size()) std::memcpy(&v, b.data() + pos, 4);
    pos += 4;
    return v;
  };
  const uint32_t n = u32();
  for (uint32_t i = 0; i < n && pos < b.size(); ++i) {
    Vector v;
    v.weights.resize(u32());
    std::memcpy(v.weights.data(), b.data() + pos, 2 * v.weights.size());
    pos += 2 * v.weights.size();
    v.stream.resize(u32());
    std::memcpy(v.stream.data(), b.data() + pos, v.stream.size());
    pos += v.stream.size();
    out.push_back(std::move(v));
  }
  return out;
}

TEST(MlwDecoder, DecodesWhatVelasEncoderWrote) {
  const std::vector<Vector> vectors = read_vectors();
  ASSERT_GT(vectors.size(), 40u);
  static MlwScratch scratch;
  size_t total = 0;
  for (size_t i = 0; i < vectors.size(); ++i) {
    SCOPED_TRACE("vector %zu (%zu weights, %zu bytes)", i, vectors[i].weights.size(), vectors[i].stream.size());
    std::vector<int16_t> out(vectors[i].weights.size() + 64, 12345);
    size_t count = 0;
    const Status s = decode_mlw(vectors[i].stream.data(), vectors[i].stream.size(), out.data(), out.size(), &count,
                                &scratch);
    ASSERT_TRUE(s.ok());
    ASSERT_EQ(count, vectors[i].weights.size());
    EXPECT_TRUE(std::memcmp(out.data(), vectors[i].weights.data(), 2 * count) == 0);
    total += count;
  }
  std::printf("%zu weights in %zu streams decoded as Vela's encoder meant\n", total, vectors.size());
}

TEST(MlwDecoder, CorruptStreamsFailWithoutFaulting) {
  const std::vector<Vector> vectors = read_vectors();
  ASSERT_GT(vectors.size(), 0u);
  static MlwScratch scratch;
  uint64_t state = 12345;
  size_t errors = 0;
  for (int round = 0; round < 3000; ++round) {
    const Vector& v = vectors[next_random(&state) % vectors.size()];
    if (v.stream.size() > 4096) continue;
    std::vector<uint8_t> bytes = v.stream;
    const int flips = 1 + static_cast<int>(next_random(&state) % 8);
    for (int f = 0; f < flips; ++f) {
      bytes[next_random(&state) % bytes.size()] ^= static_cast<uint8_t>(1u << (next_random(&state) % 8));
    }
    if (next_random(&state) % 4 == 0) bytes.resize(next_random(&state) % bytes.size());
    std::vector<int16_t> out(v.weights.size());
    size_t count = 0;
    const Status s = decode_mlw(bytes.data(), bytes.size(), out.data(), out.size(), &count, &scratch);
    EXPECT_LE(count, out.size());
    if (!s.ok()) {
      ++errors;
      EXPECT_TRUE(std::strstr(s.message(), "weight stream") != nullptr);
    }
  }
  std::printf("%zu of the corrupted streams were refused, the rest decoded to something\n", errors);
}

TEST(WeightLayout, CountsMatchTheDenseSize) {
  // Streams hold every weight once plus padding; one core gets everything.
  WeightLayout l{};
  l.ofm_depth = 20;
  l.ifm_depth = 70;
  l.kernel_h = 3;
  l.kernel_w = 3;
  l.dilation_x = l.dilation_y = 1;
  l.ofm_block_depth = 16;
  l.ofm_ublock_depth = 8;
  l.ifm_ublock_depth = 8;
  l.cores = 1;
  EXPECT_GE(weight_stream_length(l, 0), l.dense_size());
  l.cores = 2;
  EXPECT_GE(weight_stream_length(l, 0) + weight_stream_length(l, 1), l.dense_size());
  EXPECT_EQ(l.core_ofm_depth(0) + l.core_ofm_depth(1), 20);
}

// A depth-first 3x3 convolution on ethos-u85-2048 (64-deep OFM micro-blocks, 4 decoders).
WeightLayoutU85 u85_layout(int decoders, bool sparse, int ofm_depth, int ifm_depth) {
  WeightLayoutU85 l{};
  l.sparse = sparse;
  l.macs = 2048;
  l.ofm_depth = ofm_depth;
  l.ifm_depth = ifm_depth;
  l.kernel_h = l.kernel_w = 3;
  l.dilation_x = l.dilation_y = 1;
  l.stride_x = l.stride_y = 1;
  l.ofm_block_depth = 64;
  l.ifm_block_depth = sparse ? 128 : 64;
  l.ofm_ublock_depth = 64;
  l.decoders = decoders;
  return l;
}

TEST(WeightLayoutU85, DecodersShareTheWeights) {
  // Each of 4 decoders' streams is a quarter of the one-decoder stream, and together they
  // place every weight exactly once (whole blocks: no padding).
  const size_t whole = weight_stream_length_u85(u85_layout(1, false, 70, 20));
  EXPECT_EQ(weight_stream_length_u85(u85_layout(4, false, 70, 20)) * 4, whole);
  WeightLayoutU85 l = u85_layout(4, false, 128, 64);
  const size_t quarter = weight_stream_length_u85(l);
  EXPECT_EQ(quarter * 4, l.dense_size());
  std::vector<int16_t> dense(l.dense_size(), -1);
  std::vector<int16_t> stream(quarter, 1);
  for (int d = 0; d < 4; ++d) {
    l.decoder = d;
    std::vector<int16_t> marked(dense.size(), 0);
    ASSERT_TRUE(place_weights_u85(l, stream.data(), stream.size(), marked.data()).ok());
    for (size_t i = 0; i < dense.size(); ++i) {
      if (marked[i] == 0) continue;
      EXPECT_EQ(dense[i], -1);  // no weight belongs to two decoders
      dense[i] = static_cast<int16_t>(d);
    }
  }
  size_t unplaced = 0;
  for (int16_t v : dense) unplaced += v == -1 ? 1 : 0;
  EXPECT_EQ(unplaced, size_t{0});
  // OFM channels 0..3 are decoder 0's, 4..7 decoder 1's.
  EXPECT_EQ(dense[0], 0);
  EXPECT_EQ(dense[static_cast<size_t>(5) * 9 * 64], 1);
}

TEST(WeightLayoutU85, SparseStreamsKeepTwoOfFour) {
  WeightLayoutU85 l = u85_layout(1, true, 70, 20);
  const size_t n = weight_stream_length_u85(l);
  std::vector<int16_t> stream(n, 0);
  std::vector<int16_t> dense(l.dense_size(), 0);
  stream[0] = 5;
  stream[3] = -127;
  EXPECT_TRUE(place_weights_u85(l, stream.data(), n, dense.data()).ok());
  EXPECT_EQ(dense[0], 5);
  stream[1] = 1;  // a third non-zero weight among channels 0..3
  Status s = place_weights_u85(l, stream.data(), n, dense.data());
  EXPECT_EQ(s.fault(), Fault::kBadWeights);
  EXPECT_TRUE(std::strstr(s.message(), "weights 0..3 of a 2:4 sparse stream hold 3 non-zero values") != nullptr);
  stream[1] = 0;
  stream[3] = -128;  // outside what a sparse stream may hold
  s = place_weights_u85(l, stream.data(), n, dense.data());
  EXPECT_EQ(s.fault(), Fault::kBadWeights);
  EXPECT_TRUE(std::strstr(s.message(), "outside [-127, 127]") != nullptr);
}

// ---- whole streams --------------------------------------------------------------------
struct Regions {
  std::vector<uint8_t> weights = std::vector<uint8_t>(64, 0);
  std::vector<uint8_t> arena = std::vector<uint8_t>(64, 0);
  Region regions[3];
  Regions() {
    regions[0] = Region{weights.data(), weights.size(), false};
    regions[1] = Region{arena.data(), arena.size(), true};
    regions[2] = Region{nullptr, 0, true};
  }
};

Status run(const std::vector<uint8_t>& payload, Regions* r, const char* accelerator = "ethos-u55-128") {
  static NpuModel model(find_accelerator("ethos-u55-128"));
  NpuModel other(find_accelerator(accelerator));
  NpuModel& m = std::strcmp(accelerator, "ethos-u55-128") == 0 ? model : other;
  return m.run(payload.data(), payload.size(), r->regions, 3);
}

// The error names `command` at `offset`.
bool names(const Status& s, const char* command, size_t offset) {
  char at[96];
  std::snprintf(at, sizeof(at), "%s at byte %zu:", command, offset);
  if (std::strstr(s.message(), at) == nullptr) {
    std::printf("  message: %s\n  expected it to contain: %s\n", s.message(), at);
    return false;
  }
  return true;
}

TEST(Streams, AHandMadeAddRuns) {
  Regions r;
  for (int i = 0; i < 16; ++i) {
    r.arena[i] = static_cast<uint8_t>(i * 9 - 60);
    r.arena[16 + i] = static_cast<uint8_t>(100 - i * 20);
  }
  const Status s = run(add_stream().cmd0(Cmd0::kStop, 0xFFFF).finish(), &r);
  ASSERT_TRUE(s.ok());
  for (int i = 0; i < 16; ++i) {
    const int sum = static_cast<int8_t>(r.arena[i]) + static_cast<int8_t>(r.arena[16 + i]);
    EXPECT_EQ(static_cast<int8_t>(r.arena[32 + i]), sum < -128 ? -128 : (sum > 127 ? 127 : sum));
  }
}

// The COP2 form of a COP1 payload from StreamBuilder: the same config word and commands,
// with the header, command-stream entry and VEUM metadata of Vela's --cop-format=COP2.
std::vector<uint8_t> cop2_of(const std::vector<uint8_t>& cop1, uint32_t addressing = 1) {
  const size_t commands = cop1.size() - StreamBuilder::kHeaderBytes;
  const uint32_t padding = 4;  // 60 header bytes padded to 64
  std::vector<uint32_t> words = {
      0x32504F43u,                                       // "COP2"
      1u,                                                // version 1.0
      static_cast<uint32_t>(48 + commands), 0u,          // u64: bytes after the header
      1u, static_cast<uint32_t>(36 + padding + commands),  // command-stream entry, its length
      32u + padding, 0x4D554556u, 1u, 20u,               // metadata length, "VEUM", 1.0, 20 bytes
      read_u32(cop1.data() + 8), 0x10000000u, addressing, 0u, 0u,  // CONFIG, ID, addressing, staging
      0xFFFFFFFFu,
  };
  std::vector<uint8_t> bytes;
  for (uint32_t w : words) {
    for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<uint8_t>(w >> (8 * b)));
  }
  bytes.insert(bytes.end(), cop1.begin() + StreamBuilder::kHeaderBytes, cop1.end());
  return bytes;
}

TEST(Streams, Cop2RunsLikeCop1) {
  const std::vector<uint8_t> cop1 = add_stream().cmd0(Cmd0::kStop, 0xFFFF).finish();
  Regions a;
  Regions b;
  for (size_t i = 0; i < 32; ++i) {
    a.arena[i] = b.arena[i] = static_cast<uint8_t>(i * 37 + 5);
  }
  ASSERT_TRUE(run(cop1, &a).ok());
  const std::vector<uint8_t> cop2 = cop2_of(cop1, 2);
  const Status s = run(cop2, &b);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(a.arena == b.arena);

  DriverPayload header;
  ASSERT_TRUE(parse_driver_payload(cop2.data(), cop2.size(), &header).ok());
  EXPECT_EQ(header.format, 2u);
  EXPECT_EQ(header.addressing, 2u);
  EXPECT_EQ(header.commands_begin, 64u);
  EXPECT_EQ(header.config, read_u32(cop1.data() + 8));
}

TEST(Streams, Cop2HeaderErrors) {
  const std::vector<uint8_t> good = cop2_of(add_stream().cmd0(Cmd0::kStop, 0xFFFF).finish());
  struct Case {
    size_t byte;
    uint8_t value;
    const char* message;
  };
  const Case cases[] = {
      {4, 2, "COP2 version 2.0"},
      {12, 1, "COP2 header declares"},
      {16, 7, "unknown COP2 entry type 7"},
      {22, 0x01, "declares"},
      {25, 0xFF, "metadata of"},
      {28, 'X', "not VEUM"},
      {36, 3, "not VEUM"},
      {48, 9, "addressing mode 9"},
  };
  for (const Case& c : cases) {
    std::vector<uint8_t> bad = good;
    bad[c.byte] = c.value;
    Regions r;
    const Status s = run(bad, &r);
    EXPECT_EQ(s.fault(), Fault::kMalformedStream);
    if (std::strstr(s.message(), c.message) == nullptr) {
      ADD_FAILURE("byte %zu = %u: '%s' lacks '%s'", c.byte, static_cast<unsigned>(c.value), s.message(), c.message);
    }
  }
  // Every truncation is an error, never a read past the end.
  for (size_t size = 4; size < good.size(); size += 4) {
    DriverPayload header;
    EXPECT_FALSE(parse_driver_payload(good.data(), size, &header).ok());
  }
}

TEST(Streams, HeaderErrors) {
  Regions r;
  std::vector<uint8_t> good = add_stream().cmd0(Cmd0::kStop, 0xFFFF).finish();
  std::vector<uint8_t> bad = good;
  bad[0] = 'X';
  Status s = run(bad, &r);
  EXPECT_EQ(s.fault(), Fault::kMalformedStream);
  EXPECT_TRUE(std::strstr(s.message(), "COP1") != nullptr);

  bad = good;
  bad.resize(good.size() - 4);  // the command-stream action now claims one word too many
  s = run(bad, &r);
  EXPECT_EQ(s.fault(), Fault::kMalformedStream);
  EXPECT_TRUE(std::strstr(s.message(), "command stream at byte 28 declares") != nullptr);

  bad = good;
  bad.resize(good.size() - 2);
  s = run(bad, &r);
  EXPECT_TRUE(std::strstr(s.message(), "not whole 32-bit words") != nullptr);

  // Compiled for another NPU.
  s = run(good, &r, "ethos-u55-256");
  EXPECT_EQ(s.fault(), Fault::kConfigMismatch);
  EXPECT_TRUE(std::strstr(s.message(), "compiled for ethos-u55-128") != nullptr);
}

TEST(Streams, UnknownAndMalformedCommands) {
  Regions r;
  StreamBuilder s1 = add_stream();
  const size_t at = s1.next_offset();
  Status s = run(s1.word(0x0004).cmd0(Cmd0::kStop).finish(), &r);  // cmd0 opcode 4 is not defined
  EXPECT_EQ(s.fault(), Fault::kMalformedStream);
  char want[64];
  std::snprintf(want, sizeof(want), "unknown cmd0 opcode 0x004 at byte %zu", at);
  EXPECT_TRUE(std::strstr(s.message(), want) != nullptr);

  s = run(add_stream().word(0x4000u | 0x7Fu).word(0).cmd0(Cmd0::kStop).finish(), &r);  // cmd1 opcode 0x7F
  EXPECT_TRUE(std::strstr(s.message(), "unknown cmd1 opcode 0x07f") != nullptr);

  s = run(add_stream().word(0x8000u).cmd0(Cmd0::kStop).finish(), &r);  // reserved form
  EXPECT_TRUE(std::strstr(s.message(), "reserved command form") != nullptr);

  // A long command whose payload word is missing.
  StreamBuilder s2 = add_stream();
  const size_t last = s2.next_offset();
  s = run(s2.word(static_cast<uint32_t>(Cmd1::kIfmBase0) | 0x4000u).finish(), &r);
  std::snprintf(want, sizeof(want), "NPU_SET_IFM_BASE0 at byte %zu", last);
  EXPECT_TRUE(std::strstr(s.message(), want) != nullptr);

  // No NPU_OP_STOP.
  s = run(add_stream().finish(), &r);
  EXPECT_TRUE(std::strstr(s.message(), "without NPU_OP_STOP") != nullptr);

  // Reserved field values.
  size_t op = 0;
  StreamBuilder s3 = add_stream(&op);
  s = run(StreamBuilder(s3).cmd0(Cmd0::kStop).finish(), &r);
  EXPECT_TRUE(s.ok());
  StreamBuilder s4;
  ifm_registers(s4, 1, 0, 2, 2, 4);
  ifm2_registers(s4, 1, 16, 2, 2, 4);
  ofm_registers(s4, 1, 32, 2, 2, 4);
  s4.cmd0(Cmd0::kOfmPrecision, 1 | (1 << 8) | (3 << 14));  // rounding mode 3
  const size_t op4 = s4.next_offset();
  s = run(s4.cmd0(Cmd0::kElementwise, 1).cmd0(Cmd0::kStop).finish(), &r);
  EXPECT_TRUE(names(s, "NPU_OP_ELEMENTWISE", op4));
  EXPECT_TRUE(std::strstr(s.message(), "reserved rounding mode") != nullptr);
}

TEST(Streams, AccessesOutsideTheRegions) {
  Regions r;
  struct Case {
    const char* what;
    void (*edit)(StreamBuilder&);
    const char* expect;
  };
  const Case cases[] = {
      {"IFM past the arena", [](StreamBuilder& s) { s.cmd1(Cmd1::kIfmBase0, 60); }, "IFM element"},
      {"IFM2 at a 40-bit address", [](StreamBuilder& s) { s.cmd1(Cmd1::kIfm2Base0, uint64_t{1} << 39); },
       "IFM2 element"},
      {"OFM negative stride", [](StreamBuilder& s) { s.cmd1(Cmd1::kOfmStrideY, (uint64_t{1} << 40) - 64); },
       "OFM element"},
      {"OFM in the read-only weights", [](StreamBuilder& s) { s.cmd0(Cmd0::kOfmRegion, 0); }, "read-only"},
      {"IFM in a region the driver did not give", [](StreamBuilder& s) { s.cmd0(Cmd0::kIfmRegion, 5); },
       "uses region 5"},
      {"IFM in the empty fast scratch", [](StreamBuilder& s) { s.cmd0(Cmd0::kIfmRegion, 2); }, "region 2 of 0 bytes"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("%s", c.what);
    StreamBuilder s = add_stream();
    c.edit(s);
    const size_t op = s.next_offset();
    const Status st = run(s.cmd0(Cmd0::kElementwise, 1).cmd0(Cmd0::kStop).finish(), &r);
    EXPECT_EQ(st.fault(), Fault::kOutOfBounds);
    EXPECT_TRUE(names(st, "NPU_OP_ELEMENTWISE", op));
    EXPECT_TRUE(std::strstr(st.message(), c.expect) != nullptr);
  }
  // DMA beyond its source, and into the SHRAM past its end.
  StreamBuilder d;
  d.cmd0(Cmd0::kDma0SrcRegion, 0).cmd0(Cmd0::kDma0DstRegion, 1).cmd1(Cmd1::kDma0Src, 32).cmd1(Cmd1::kDma0Dst, 0)
      .cmd1(Cmd1::kDma0Len, 48);
  size_t op = d.next_offset();
  Status st = run(d.cmd0(Cmd0::kDmaStart).cmd0(Cmd0::kStop).finish(), &r);
  EXPECT_TRUE(names(st, "NPU_OP_DMA_START", op));
  EXPECT_TRUE(std::strstr(st.message(), "DMA source bytes [32, 80) lie outside region 0 of 64 bytes") != nullptr);
  StreamBuilder d2;
  d2.cmd0(Cmd0::kDma0SrcRegion, 0).cmd0(Cmd0::kDma0DstRegion, 1 | (1 << 8)).cmd1(Cmd1::kDma0Src, 0)
      .cmd1(Cmd1::kDma0Dst, 24 * 1024 - 16).cmd1(Cmd1::kDma0Len, 32);
  op = d2.next_offset();
  st = run(d2.cmd0(Cmd0::kDmaStart).cmd0(Cmd0::kStop).finish(), &r);
  EXPECT_TRUE(names(st, "NPU_OP_DMA_START", op));
  EXPECT_TRUE(std::strstr(st.message(), "internal memory") != nullptr);
}

TEST(Streams, WeightsThatDoNotDecode) {
  // A 1x1 convolution of 4 -> 8 channels whose weight stream is garbage.
  Regions r;
  std::memset(r.weights.data(), 0xA7, r.weights.size());
  StreamBuilder s;
  ifm_registers(s, 1, 0, 2, 2, 4);
  ofm_registers(s, 1, 16, 2, 2, 8);
  s.cmd0(Cmd0::kOfmPrecision, 1)  // per-channel scales
      .cmd0(Cmd0::kWeightRegion, 0)
      .cmd1(Cmd1::kWeightBase, 0)
      .cmd1(Cmd1::kWeightLength, 48)
      .cmd0(Cmd0::kScaleRegion, 0)
      .cmd1(Cmd1::kScaleBase, 48)
      .cmd1(Cmd1::kScaleLength, 16)
      .cmd0(Cmd0::kOfmBlkDepthM1, 7);
  const size_t op = s.next_offset();
  const Status st = run(s.cmd0(Cmd0::kConv).cmd0(Cmd0::kStop).finish(), &r);
  EXPECT_EQ(st.fault(), Fault::kBadWeights);
  EXPECT_TRUE(names(st, "NPU_OP_CONV", op));
}

TEST(Streams, UnmodelledFeaturesSaySo) {
  Regions r;
  StreamBuilder s = add_stream();
  const size_t op = s.next_offset();
  const Status st = run(s.cmd0(Cmd0::kElementwise, static_cast<uint16_t>(ElementwiseMode::kLeakyRelu))
                            .cmd0(Cmd0::kStop)
                            .finish(),
                        &r);
  EXPECT_EQ(st.fault(), Fault::kUnsupported);
  EXPECT_TRUE(names(st, "NPU_OP_ELEMENTWISE", op));
}

}  // namespace
}  // namespace test
}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
