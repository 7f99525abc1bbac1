#include "output/hdf5/hdf5_table.hpp"

#include <atomic>

#include "output/hdf5/hdf5_errors.hpp"

namespace stepsim::out::h5 {

H5::DSetCreatPropList chunked(hsize_t chunk_rows) {
  H5::DSetCreatPropList p;
  p.setChunk(1, &chunk_rows);
  p.setShuffle();
  p.setDeflate(1);
  H5Pset_obj_track_times(p.getId(), false);  // timestamps would make every file differ
  return p;
}

H5::FileCreatPropList file_creation() {
  H5::FileCreatPropList p;
  H5Pset_obj_track_times(p.getId(), false);
  return p;
}

H5::EnumType enum_type(const std::vector<std::string_view>& names) {
  H5::EnumType t(H5::PredType::NATIVE_UINT8);
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::uint8_t v = static_cast<std::uint8_t>(i);
    t.insert(std::string(names[i]), &v);
  }
  return t;
}

H5::StrType vlen_string() {
  H5::StrType t(H5::PredType::C_S1, H5T_VARIABLE);
  t.setCset(H5T_CSET_UTF8);
  return t;
}

H5::StrType fixed_string(std::size_t chars) {
  H5::StrType t(H5::PredType::C_S1, chars);
  t.setStrpad(H5T_STR_NULLPAD);
  t.setCset(H5T_CSET_UTF8);
  return t;
}

void write_text(H5::H5File& file, const std::string& name, const std::string& text) {
  H5::DSetCreatPropList p;
  H5Pset_obj_track_times(p.getId(), false);
  const H5::StrType type = vlen_string();
  H5::DataSet d = file.createDataSet(name, type, H5::DataSpace(H5S_SCALAR), p);
  const char* c = text.c_str();
  d.write(&c, type);
}

void write_attribute(H5::H5Object& obj, const std::string& name, const std::string& value) {
  const H5::StrType type = vlen_string();
  H5::Attribute a = obj.createAttribute(name, type, H5::DataSpace(H5S_SCALAR));
  const char* c = value.c_str();
  a.write(type, &c);
}

void write_attribute(H5::H5Object& obj, const std::string& name, double value) {
  H5::Attribute a = obj.createAttribute(name, H5::PredType::NATIVE_DOUBLE, H5::DataSpace(H5S_SCALAR));
  a.write(H5::PredType::NATIVE_DOUBLE, &value);
}

void write_integer_attribute(H5::H5Object& obj, const std::string& name, std::int64_t value) {
  H5::Attribute a = obj.createAttribute(name, H5::PredType::NATIVE_INT64, H5::DataSpace(H5S_SCALAR));
  a.write(H5::PredType::NATIVE_INT64, &value);
}

H5::Group create_group(H5::H5File& file, const std::string& name) {
  // The C++ API takes no group creation list; the C call does, and the list turns timestamps off.
  const hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
  H5Pset_obj_track_times(gcpl, false);
  const hid_t id = H5Gcreate2(file.getId(), name.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT);
  H5Pclose(gcpl);
  if (id < 0) hdf5_failed("create the group /" + name);
  return H5::Group(id);  // owns the id from here
}

H5::H5File in_memory_file() {
  static std::atomic<unsigned> files{0};
  H5::FileAccPropList in_memory;
  in_memory.setCore(1 << 20, false);
  // A name under /dev/null cannot exist: HDF5's first, tentative open of the name finds nothing.
  return H5::H5File("/dev/null/stepsim-" + std::to_string(files++) + ".h5", H5F_ACC_TRUNC, file_creation(),
                    in_memory);
}

std::string file_image(H5::H5File& file) {
  const hid_t id = file.getId();
  std::string image;
  const ssize_t size = H5Fflush(id, H5F_SCOPE_GLOBAL) < 0 ? -1 : H5Fget_file_image(id, nullptr, 0);
  if (size >= 0) image.resize(static_cast<std::size_t>(size));
  if (size < 0 || H5Fget_file_image(id, image.data(), image.size()) != size) hdf5_failed("build the file");
  return image;
}

}  // namespace stepsim::out::h5
