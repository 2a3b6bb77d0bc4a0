// Hand-made .pth files for the reader's error tests: a zip writer laid out as
// torch.save's (stored records, ZIP64 end records) and a pickle assembler
// with the opcodes torch uses, so each test can break one thing at a time.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace minimind::testing {

using Bytes = std::vector<uint8_t>;

inline void put_le(Bytes& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(uint8_t(value >> (8 * i)));
}

struct ZipRecord {
  std::string name;
  Bytes data;
  uint16_t method = 0;  // 0 stored; 8 claims deflate (the data stays as given)
};

// A zip of `records`; with `zip64`, ZIP64 end records as torch 1.13 writes them;
// with `zip64_entries`, each central entry's sizes and offset as 0xffffffff
// and their values in a ZIP64 extra field (as for records past 4 GiB).
inline Bytes make_zip(const std::vector<ZipRecord>& records, bool zip64 = true, bool zip64_entries = false) {
  Bytes out, directory;
  for (const ZipRecord& r : records) {
    const uint64_t local = out.size();
    put_le(out, 0x04034b50, 4);
    put_le(out, 0, 2);  // version needed
    put_le(out, 0, 2);  // flags
    put_le(out, r.method, 2);
    put_le(out, 0, 4);  // time, date
    put_le(out, 0, 4);  // crc (not checked)
    put_le(out, r.data.size(), 4);
    put_le(out, r.data.size(), 4);
    put_le(out, r.name.size(), 2);
    put_le(out, 0, 2);  // extra
    out.insert(out.end(), r.name.begin(), r.name.end());
    out.insert(out.end(), r.data.begin(), r.data.end());

    put_le(directory, 0x02014b50, 4);
    put_le(directory, 0, 2);  // version made by
    put_le(directory, 0, 2);  // version needed
    put_le(directory, 0, 2);  // flags
    put_le(directory, r.method, 2);
    put_le(directory, 0, 4);  // time, date
    put_le(directory, 0, 4);  // crc
    put_le(directory, zip64_entries ? 0xffffffff : r.data.size(), 4);
    put_le(directory, zip64_entries ? 0xffffffff : r.data.size(), 4);
    put_le(directory, r.name.size(), 2);
    put_le(directory, zip64_entries ? 4 + 24 : 0, 2);  // extra
    put_le(directory, 0, 2);                           // comment
    put_le(directory, 0, 2);                           // disk
    put_le(directory, 0, 2);                           // internal attributes
    put_le(directory, 0, 4);                           // external attributes
    put_le(directory, zip64_entries ? 0xffffffff : local, 4);
    directory.insert(directory.end(), r.name.begin(), r.name.end());
    if (zip64_entries) {  // ZIP64 extra: size, compressed size, local header offset
      put_le(directory, 0x0001, 2);
      put_le(directory, 24, 2);
      put_le(directory, r.data.size(), 8);
      put_le(directory, r.data.size(), 8);
      put_le(directory, local, 8);
    }
  }
  const uint64_t directory_offset = out.size();
  out.insert(out.end(), directory.begin(), directory.end());
  if (zip64) {
    const uint64_t record = out.size();
    put_le(out, 0x06064b50, 4);
    put_le(out, 44, 8);  // size of the rest of the record
    put_le(out, 0x2d, 2);
    put_le(out, 0x2d, 2);
    put_le(out, 0, 4);
    put_le(out, 0, 4);
    put_le(out, records.size(), 8);
    put_le(out, records.size(), 8);
    put_le(out, directory.size(), 8);
    put_le(out, directory_offset, 8);
    put_le(out, 0x07064b50, 4);  // locator
    put_le(out, 0, 4);
    put_le(out, record, 8);
    put_le(out, 1, 4);
  }
  put_le(out, 0x06054b50, 4);
  put_le(out, 0, 4);  // disks
  put_le(out, records.size(), 2);
  put_le(out, records.size(), 2);
  put_le(out, directory.size(), 4);
  put_le(out, directory_offset, 4);
  put_le(out, 0, 2);  // comment
  return out;
}

// Pickle opcodes, appended in order: Pickle().proto().empty_dict()...stop().
class Pickle {
 public:
  Bytes bytes;

  Pickle& op(uint8_t code) { return raw({code}); }
  Pickle& raw(const Bytes& b) {
    bytes.insert(bytes.end(), b.begin(), b.end());
    return *this;
  }
  Pickle& proto() { return raw({0x80, 2}); }
  Pickle& mark() { return op('('); }
  Pickle& stop() { return op('.'); }
  Pickle& empty_dict() { return op('}'); }
  Pickle& empty_tuple() { return op(')'); }
  Pickle& tuple() { return op('t'); }
  Pickle& tuple_n(int n) { return op(uint8_t(0x84 + n)); }  // TUPLE1..3
  Pickle& reduce() { return op('R'); }
  Pickle& setitems() { return op('u'); }
  Pickle& setitem() { return op('s'); }
  Pickle& persid() { return op('Q'); }
  Pickle& newfalse() { return op(0x89); }
  Pickle& global(const std::string& module, const std::string& name) {
    op('c');
    bytes.insert(bytes.end(), module.begin(), module.end());
    bytes.push_back('\n');
    bytes.insert(bytes.end(), name.begin(), name.end());
    bytes.push_back('\n');
    return *this;
  }
  Pickle& str(const std::string& s) {
    op('X');
    put_le(bytes, s.size(), 4);
    bytes.insert(bytes.end(), s.begin(), s.end());
    return *this;
  }
  Pickle& integer(int64_t v) {
    if (v >= 0 && v < 256) return raw({'K', uint8_t(v)});
    if (v >= 0 && v < 65536) return raw({'M', uint8_t(v), uint8_t(v >> 8)});
    if (v >= INT32_MIN && v <= INT32_MAX) {
      op('J');
      put_le(bytes, uint64_t(v), 4);
      return *this;
    }
    raw({0x8a, 8});  // LONG1, 8 bytes
    put_le(bytes, uint64_t(v), 8);
    return *this;
  }
  Pickle& ints(const std::vector<int64_t>& values) {  // a tuple of ints
    mark();
    for (int64_t v : values) integer(v);
    return tuple();
  }
  Pickle& binput(uint8_t i) { return raw({'q', i}); }
  Pickle& binget(uint8_t i) { return raw({'h', i}); }

  // _rebuild_tensor_v2(storage, offset, size, stride, False, OrderedDict())
  // of the storage record data/<key>, as torch 1.13 writes it.
  Pickle& tensor(const std::string& storage_type, const std::string& key, int64_t numel, int64_t offset,
                 const std::vector<int64_t>& size, const std::vector<int64_t>& stride) {
    global("torch._utils", "_rebuild_tensor_v2").mark();
    mark().str("storage").global("torch", storage_type).str(key).str("cpu").integer(numel).tuple().persid();
    integer(offset).ints(size).ints(stride).newfalse();
    global("collections", "OrderedDict").empty_tuple().reduce();
    return tuple().reduce();
  }
};

// Row-major strides of `size`.
inline std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& size) {
  std::vector<int64_t> stride(size.size(), 1);
  for (size_t i = size.size(); i-- > 1;) stride[i - 1] = stride[i] * size[i];
  return stride;
}

// A .pth of `pickle` (as archive/data.pkl) and storage records archive/data/<key>.
inline Bytes make_pth(const Bytes& pickle, const std::vector<std::pair<std::string, Bytes>>& storages = {},
                      uint16_t pickle_method = 0) {
  std::vector<ZipRecord> records = {{"archive/data.pkl", pickle, pickle_method}};
  for (const auto& [key, data] : storages) records.push_back({"archive/data/" + key, data});
  records.push_back({"archive/version", {'3', '\n'}});
  return make_zip(records);
}

// Little-endian float32 bytes.
inline Bytes f32_bytes(const std::vector<float>& values) {
  Bytes out(values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i) {
    uint32_t u;
    std::memcpy(&u, &values[i], 4);
    for (int b = 0; b < 4; ++b) out[4 * i + size_t(b)] = uint8_t(u >> (8 * b));
  }
  return out;
}

}  // namespace minimind::testing
