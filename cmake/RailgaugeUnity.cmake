# Every build compiles a target's C++ files in unity batches of up to 16 units, unless the cache
# says otherwise (-DCMAKE_UNITY_BUILD=OFF: one object per file, for quick rebuilds while editing).
# Nearly every unit instantiates the same nlohmann, fmt and gtest templates again, and a fresh
# clone, CI's case, compiles everything cold: batched, it compiles each of them once per batch.
# On the 2-core VM, a cold build/ (CUDA on, ccache empty) took 1,528 s in batches; file by file
# the same build had compiled 167 objects (23 %) after 664 s.
# Names private to a .cpp file must then be unique within its target (tests/unity_names_test.py).
# CUDA files are compiled one by one whatever the setting (CMake 3.25 batches C and C++ only).
if(NOT DEFINED CMAKE_UNITY_BUILD)
  set(CMAKE_UNITY_BUILD ON)
endif()
if(NOT DEFINED CMAKE_UNITY_BUILD_BATCH_SIZE)
  set(CMAKE_UNITY_BUILD_BATCH_SIZE 16)
endif()
