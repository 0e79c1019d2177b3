// The EthosUBackend delegate, unchanged, on the NPU model: NpuModelDriver is installed with
// set_driver() and every partition of some reference cases is initialised and executed
// through the backend ExecuTorch finds registered (the genuine libexecutorch.so), as a
// Method would call it, with tensors of the partition's dtypes and shapes. The outputs must
// equal the TOSA reference model's, as in reference_test, which drives the model directly.
// A stream compiled for another NPU configuration fails with NotSupported.
//
// Arguments: CASE files.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>

#include "runtime/ethosu/driver.h"
#include "runtime/ethosu/ethosu_backend.h"
#include "runtime/ethosu/npu_model/npu_model_driver.h"
#include "runtime/ethosu/npu_model/test/case_file.h"
#include "runtime/ethosu/payload.h"
#include "runtime/executorch_names.h"
#include "runtime/testing/executorch.h"
#include "runtime/testing/files.h"
#include "runtime/testing/test.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace test {
namespace {

// A contiguous tensor owning its bytes.
class OwnedTensor {
 public:
  OwnedTensor(ScalarType type, const int32_t* sizes, size_t rank)
      : sizes_(sizes, sizes + rank), dim_order_(rank), strides_(rank) {
    size_t numel = 1;
    for (size_t i = rank; i-- > 0;) {
      dim_order_[i] = static_cast<uint8_t>(i);
      strides_[i] = static_cast<int32_t>(numel);
      numel *= static_cast<size_t>(sizes_[i]);
    }
    storage_.assign(numel * executorch::runtime::elementSize(type) / 8 + 2, 0);
    impl_ = std::make_unique<TensorImpl>(type, static_cast<ssize_t>(rank), sizes_.data(), storage_.data(),
                                         dim_order_.data(), strides_.data());
    value_ = EValue(Tensor(impl_.get()));
  }
  uint8_t* bytes() {
    return reinterpret_cast<uint8_t*>(storage_.data());
  }
  EValue* value() {
    return &value_;
  }

 private:
  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int32_t> strides_;
  std::vector<int64_t> storage_;
  std::unique_ptr<TensorImpl> impl_;
  EValue value_;
};

ScalarType type_of(const TensorEntry& e) {
  if (e.dtype != ScalarType::Undefined) return e.dtype;
  return e.elem_size == 1 ? ScalarType::Char : (e.elem_size == 2 ? ScalarType::Short : ScalarType::Int);
}

// One delegate instance on a payload (a copy: the delegate points into it).
class Delegate {
 public:
  explicit Delegate(const std::vector<uint8_t>& payload)
      : payload_(payload), pool_(4 << 20), allocator_(static_cast<uint32_t>(pool_.size()), pool_.data()) {}
  ~Delegate() {
    if (handle_ != nullptr) backend()->destroy(handle_);
  }
  static BackendInterface* backend() {
    return executorch::runtime::get_backend_class(kBackendId);
  }
  Error init() {
    FreeableBuffer buffer(payload_.data(), payload_.size(), nullptr);
    BackendInitContext context(&allocator_);
    auto result = backend()->init(context, &buffer, {});
    if (!result.ok()) return result.error();
    handle_ = result.get();
    return Error::Ok;
  }
  Error execute(std::vector<EValue*>& args) {
    BackendExecutionContext context;
    return backend()->execute(context, handle_, Span<EValue*>(args.data(), args.size()));
  }

 private:
  std::vector<uint8_t> payload_;
  std::vector<uint8_t> pool_;
  MemoryAllocator allocator_;
  DelegateHandle* handle_ = nullptr;
};

TEST(NpuModelDelegate, RunsTheCasesThroughEthosUBackend) {
  ASSERT_GT(etarm::testing::arg_count(), 0);
  ASSERT_EQ(registration_status(), Error::Ok);
  size_t values = 0;
  for (int a = 0; a < etarm::testing::arg_count(); ++a) {
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(etarm::testing::read_file(etarm::testing::arg(a), &bytes));
    Case c;
    CaseReader reader(bytes);
    ASSERT_TRUE(reader.read(&c));
    const std::string name = case_name(etarm::testing::arg(a));
    NpuModelDriver npu(c.target.c_str());
    set_driver(&npu);
    for (size_t p = 0; p < c.partitions.size(); ++p) {
      SCOPED_TRACE("%s partition %zu", name.c_str(), p);
      const PartitionCase& pc = c.partitions[p];
      Payload payload;
      ASSERT_EQ(parse_payload(pc.payload.data(), pc.payload.size(), &payload), Error::Ok);
      Delegate delegate(pc.payload);
      ASSERT_EQ(delegate.init(), Error::Ok);
      for (const InputSet& set : pc.sets) {
        SCOPED_TRACE("inputs %s", set.label.c_str());
        std::vector<std::unique_ptr<OwnedTensor>> tensors;
        std::vector<EValue*> args;
        for (uint32_t k = 0; k < payload.num_inputs + payload.num_outputs; ++k) {
          const bool output = k >= payload.num_inputs;
          const TensorEntry e = tensor_entry(payload, output, output ? k - payload.num_inputs : k);
          tensors.push_back(std::make_unique<OwnedTensor>(type_of(e), e.shape, e.rank));
          args.push_back(tensors.back()->value());
          if (!output) std::memcpy(tensors.back()->bytes(), set.inputs[k].data(), e.nbytes);
        }
        const Error err = delegate.execute(args);
        if (err != Error::Ok) {
          ADD_FAILURE("execute failed: %s", npu.last_error());
          continue;
        }
        for (uint32_t o = 0; o < payload.num_outputs; ++o) {
          const std::vector<uint8_t>& want = set.outputs[o];
          EXPECT_TRUE(std::memcmp(tensors[payload.num_inputs + o]->bytes(), want.data(), want.size()) == 0);
          values += want.size() / tensor_entry(payload, true, o).elem_size;
        }
      }
    }
    set_driver(nullptr);
  }
  std::printf("%zu output values through EthosUBackend on the NPU model equal the TOSA reference model's\n", values);
}

TEST(NpuModelDelegate, AStreamForAnotherNpuIsNotSupported) {
  ASSERT_GT(etarm::testing::arg_count(), 0);
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(etarm::testing::read_file(etarm::testing::arg(0), &bytes));
  Case c;
  CaseReader reader(bytes);
  ASSERT_TRUE(reader.read(&c));
  ASSERT_STREQ(c.target.c_str(), "ethos-u55-128");
  NpuModelDriver npu("ethos-u65-256");
  set_driver(&npu);
  const PartitionCase& pc = c.partitions[0];
  Payload payload;
  ASSERT_EQ(parse_payload(pc.payload.data(), pc.payload.size(), &payload), Error::Ok);
  Delegate delegate(pc.payload);
  ASSERT_EQ(delegate.init(), Error::Ok);
  std::vector<std::unique_ptr<OwnedTensor>> tensors;
  std::vector<EValue*> args;
  for (uint32_t k = 0; k < payload.num_inputs + payload.num_outputs; ++k) {
    const bool output = k >= payload.num_inputs;
    const TensorEntry e = tensor_entry(payload, output, output ? k - payload.num_inputs : k);
    tensors.push_back(std::make_unique<OwnedTensor>(type_of(e), e.shape, e.rank));
    args.push_back(tensors.back()->value());
  }
  EXPECT_EQ(delegate.execute(args), Error::NotSupported);
  EXPECT_TRUE(std::strstr(npu.last_error(), "compiled for ethos-u55-128") != nullptr);
  NpuModelDriver unknown("ethos-u99-1");
  set_driver(&unknown);
  EXPECT_EQ(delegate.execute(args), Error::NotSupported);
  set_driver(nullptr);
}

}  // namespace
}  // namespace test
}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
