// Stand-ins for the few types of Vela's regor framework that its Ethos-U85 weight encoder
// (architecture/ethosu85/ethos_u85_weight_encoder.cpp) names, so that the encoder compiles
// on its own as a test oracle. Written for etarm: only what the encoder touches, with the
// meaning regor gives it (a Shape's negative index counts from the innermost axis; a
// WeightFormat flag set; rounding away from zero). Every framework header the encoder
// includes is a one-line file beside this one that includes it.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#define UNUSED(x) ((void)(x))

// regor's enum name tables (for its logs): nothing to log here.
#define BEGIN_ENUM_TABLE(type)
#define ADD_ENUM_NAME(name)
#define END_ENUM_TABLE()

namespace regor {

// A set of flags of enum E: `flags % E::X` asks whether X is set, All(...) whether all are.
template <typename E>
class Flags {
 public:
  using U = std::underlying_type_t<E>;
  Flags() = default;
  template <typename... More>
  Flags(E first, More... more) : bits_(static_cast<U>((static_cast<U>(first) | ... | static_cast<U>(more)))) {}
  bool operator%(E e) const { return (bits_ & static_cast<U>(e)) != 0; }
  template <typename... More>
  bool All(E first, More... more) const {
    return (*this % first) && (... && (*this % more));
  }
  bool operator==(const Flags& o) const { return bits_ == o.bits_; }

 private:
  U bits_ = 0;
};

struct Point2i {
  int x = 0;
  int y = 0;
  Point2i() = default;
  Point2i(int x_, int y_) : x(x_), y(y_) {}
  bool operator==(const Point2i& o) const { return x == o.x && y == o.y; }
};

// A 4-axis shape (N, H, W, C) or stride set; index -1 is the innermost axis.
class Shape {
 public:
  Shape() = default;
  Shape(int n, int h, int w, int c) : v_{n, h, w, c} {}
  int operator[](int i) const { return v_[static_cast<size_t>(i < 0 ? 4 + i : i)]; }
  int Batch() const { return v_[0]; }
  int Height() const { return v_[1]; }
  int Width() const { return v_[2]; }
  int Depth() const { return v_[3]; }
  int Elements() const { return v_[0] * v_[1] * v_[2] * v_[3]; }
  // The axes named by index, in that order: Extract(3, 1, 2, 0) of OHWI is IHWO.
  Shape Extract(int a, int b, int c, int d) const { return Shape((*this)[a], (*this)[b], (*this)[c], (*this)[d]); }
  int Dot(const Shape& o) const { return v_[0] * o.v_[0] + v_[1] * o.v_[1] + v_[2] * o.v_[2] + v_[3] * o.v_[3]; }
  bool operator==(const Shape& o) const { return v_ == o.v_; }

 private:
  std::array<int, 4> v_{};
};

template <typename T>
T RoundAway(T value, T align) {
  const T magnitude = value < 0 ? -value : value;
  const T rounded = (magnitude + align - 1) / align * align;
  return value < 0 ? -rounded : rounded;
}

// FNV-1a over the arguments' bytes (the encoder hashes its configuration for Vela's cache).
template <typename... T>
uint32_t SimpleHash32(const T&... values) {
  uint32_t h = 2166136261u;
  auto mix = [&h](const auto& v) {
    unsigned char bytes[sizeof(v)];
    std::memcpy(bytes, &v, sizeof(v));
    for (unsigned char b : bytes) h = (h ^ b) * 16777619u;
  };
  (mix(values), ...);
  return h;
}

enum class DataType { None, Int8, UInt8, Int16, UInt16, Int32, Int48, Int64 };

inline int DataTypeSizeBits(DataType t) {
  switch (t) {
    case DataType::Int8:
    case DataType::UInt8:
      return 8;
    case DataType::Int16:
    case DataType::UInt16:
      return 16;
    case DataType::Int32:
      return 32;
    case DataType::Int48:
      return 48;
    case DataType::Int64:
      return 64;
    default:
      return 0;
  }
}

// A 48-bit bias as regor stores it: six little-endian bytes.
struct int48_t {
  uint8_t b[6];
  explicit operator int64_t() const {
    uint64_t v = 0;
    for (int i = 5; i >= 0; --i) v = (v << 8) | b[i];
    return static_cast<int64_t>(v << 16) >> 16;
  }
};

struct QuantizedScale {
  int32_t scale = 0;
  int shift = 0;
  QuantizedScale() = default;
  QuantizedScale(int32_t scale_, int shift_) : scale(scale_), shift(shift_) {}
};

enum class QuantizationType { TFLITE, EXPLICIT };

struct Quantization {
  QuantizationType type = QuantizationType::EXPLICIT;
  std::vector<QuantizedScale> scales;
};

class SchedulerTensor {
 public:
  SchedulerTensor(DataType type, const Shape& shape) : dataType(type), storageShape(shape) {}
  virtual ~SchedulerTensor() = default;
  DataType dataType;
  Shape storageShape;
};

class Kernel {
 public:
  Kernel(Point2i stride, Point2i dilation) : stride_(stride), dilation_(dilation) {}
  Point2i Stride() const { return stride_; }
  Point2i Dilation() const { return dilation_; }

 private:
  Point2i stride_;
  Point2i dilation_;
};

class ArchitectureOpConfig {
 public:
  virtual ~ArchitectureOpConfig() = default;
};

enum class EthosU85Accumulator { Acc32 = 0, Acc48 = 1 };

enum class EthosU85Traversal { DepthFirst = 0, PartKernel = 1, Depthwise = 2 };

// The block configuration of one operation, as far as the weight order depends on it.
class EthosU85OpConfig : public ArchitectureOpConfig {
 public:
  EthosU85OpConfig(Shape ofmUBlock, Shape ofmBlock, Shape ifmBlock, EthosU85Traversal traversal,
                   EthosU85Accumulator acc)
      : ofmUBlock_(ofmUBlock), ofmBlock_(ofmBlock), ifmBlock_(ifmBlock), traversal_(traversal), acc_(acc) {}
  Shape OfmUBlock() const { return ofmUBlock_; }
  Shape OfmBlock() const { return ofmBlock_; }
  Shape IfmBlock() const { return ifmBlock_; }
  EthosU85Traversal Traversal() const { return traversal_; }
  EthosU85Accumulator Acc() const { return acc_; }

 private:
  Shape ofmUBlock_;
  Shape ofmBlock_;
  Shape ifmBlock_;
  EthosU85Traversal traversal_;
  EthosU85Accumulator acc_;
};

// The configuration: weight decoders (one per core) and MACs in all.
class ArchEthosU85 {
 public:
  ArchEthosU85(int cores, int macs) : _cores(cores), _macs(macs) {}

 private:
  friend class EthosU85WeightEncoder;
  int _cores;
  int _macs;
};

}  // namespace regor
