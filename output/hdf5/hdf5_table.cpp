#include "output/hdf5/hdf5_table.hpp"

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

}  // namespace stepsim::out::h5
