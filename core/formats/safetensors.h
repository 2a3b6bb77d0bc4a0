// Reader for the safetensors container: 8-byte little-endian header length N,
// N bytes of JSON {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {...}},
// then the raw little-endian tensor bytes (offsets relative to the end of the header).
// Every malformed input is rejected with a SafetensorsError naming the problem.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "formats/tensor_source.h"
#include "util/error.h"
#include "util/tensor.h"

namespace minimind {

// Every throw names its own kind ("safetensors.<what>") and the values its message is
// made of (util/error.h), so the page can word it in the reader's language.
class SafetensorsError : public Error {
 public:
  SafetensorsError(std::string kind, ErrorValues values, const std::string& message)
      : Error(std::move(kind), std::move(values), message) {}
};

struct SafetensorsEntry : TensorInfo {  // name, dtype, shape
  size_t begin = 0;                     // byte offset into the data section
  size_t end = 0;
};

// A parsed view of safetensors bytes. Does not copy the bytes: they must
// outlive the object.
class SafetensorsFile : public TensorSource {
 public:
  // Header JSON larger than this is refused before parsing (a real header of
  // a MiniMind checkpoint is a few tens of KB).
  static constexpr uint64_t kMaxHeaderBytes = 16u << 20;

  SafetensorsFile(const uint8_t* bytes, size_t size);

  // The same with the tensor data read on demand, one tensor at a time, so
  // that a large file need not be in memory next to the weights it becomes:
  // `head` holds the file's first head_size bytes (at least the 8-byte
  // length and the header), the file has `size` bytes, and read(offset, n,
  // out) copies n bytes of the file starting at `offset`.
  using ByteReader = std::function<void(size_t offset, size_t n, uint8_t* out)>;
  SafetensorsFile(const uint8_t* head, size_t head_size, size_t size, ByteReader read);

  const std::vector<SafetensorsEntry>& entries() const { return entries_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  // O(1) by name (a hash map): a header of many tensors must not make each
  // lookup a scan of them all.
  const SafetensorsEntry* find(const std::string& name) const;
  using NameIndex = std::unordered_map<std::string, size_t>;  // name -> row of entries()
  const NameIndex& name_index() const { return by_name_; }

  // Widens F32/F16/BF16 data to float32 into out (entry's element count).
  void read_floats(const SafetensorsEntry& entry, float* out) const;
  std::vector<int32_t> read_int32(const SafetensorsEntry& entry) const;

  // Bytes 8 + header length: where the data section starts in the file.
  size_t data_offset() const { return data_offset_; }

  // TensorSource
  std::vector<std::string> tensor_names() const override;
  const TensorInfo* tensor_info(const std::string& name) const override { return find(name); }
  void read_tensor(const std::string& name, float* out) const override;

 private:
  void parse(const uint8_t* head, size_t head_size, size_t size);
  // The bytes of one entry: a view into the file, or read into `buffer`.
  const uint8_t* entry_bytes(const SafetensorsEntry& entry, std::vector<uint8_t>& buffer) const;

  const uint8_t* data_ = nullptr;  // start of the data section (whole-file reads only)
  size_t data_offset_ = 0;
  size_t data_size_ = 0;
  ByteReader read_;  // on-demand reads, or empty
  std::vector<SafetensorsEntry> entries_;
  NameIndex by_name_;
  std::map<std::string, std::string> metadata_;
};

// Writes a safetensors file (F32 or I32 tensors): for tests and exports.
struct NamedTensor {
  std::string name;
  DType dtype;  // F32, F16, BF16 (written from floats, rounded) or I32
  Shape shape;
  std::vector<float> values;  // for I32 the values are integral floats
};
std::vector<uint8_t> write_safetensors(const std::vector<NamedTensor>& tensors,
                                       const std::map<std::string, std::string>& metadata = {});

}  // namespace minimind
