# railgauge_add_cuda_probe(NAME SOURCE [LIBS...]): a probe built beside railgauge into bin/ and run
# by hand on a GPU node (scripts/node_kit.sh packs it): one .cu file, the CUDA runtime linked
# statically so the kit needs only the driver and the libraries named. Only with CUDA.
function(railgauge_add_cuda_probe name source)
  if(NOT RAILGAUGE_HAS_CUDA)
    return()
  endif()
  add_executable(${name} ${source})
  set_target_properties(${name} PROPERTIES CUDA_RUNTIME_LIBRARY Static CUDA_STANDARD 17
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  target_compile_options(${name} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --Werror=all-warnings>)
  # The source root, for the device code a probe shares with railgauge (harness/cuda/*.cuh).
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  if(ARGN)
    target_link_libraries(${name} PRIVATE ${ARGN})
  endif()
endfunction()
