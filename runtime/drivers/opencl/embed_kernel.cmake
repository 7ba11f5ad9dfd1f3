# Writes OUT, a C++ file defining loom::runtime::opencl::kKernelSource: KERNEL (vta.cl) with the
# text of ABI (opencl_abi.h) in place of its `#include "opencl_abi.h"` line, so the kernel source
# the driver builds at run time is one string inside the library.
file(READ ${ABI} abi)
file(READ ${KERNEL} kernel)
string(REPLACE "#include \"opencl_abi.h\"" "${abi}" kernel "${kernel}")
string(FIND "${kernel}" ")loomcl\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${KERNEL} contains the raw-string delimiter )loomcl\"")
endif()
file(WRITE ${OUT} "// Generated from ${KERNEL} and ${ABI} by embed_kernel.cmake; do not edit.\n"
     "namespace loom::runtime::opencl {\n"
     "extern const char kKernelSource[];\n"
     "const char kKernelSource[] = R\"loomcl(${kernel})loomcl\";\n"
     "}  // namespace loom::runtime::opencl\n")
