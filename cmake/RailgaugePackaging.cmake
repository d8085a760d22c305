# The installed layout that harness/data_paths.h looks for, and the Debian package.
#
#   <prefix>/bin/railgauge
#   <prefix>/share/railgauge/{suites,rules,peaks,schema}   the data the binary reads
#   <prefix>/share/railgauge/slurm/                       the Slurm batch scripts
#   <prefix>/lib/railgauge/                               libraries a relocatable kit carries
#   <prefix>/share/doc/railgauge/                         README and the how-to documents
#
# The build tree mirrors it (build/share/railgauge/* link to results/*), so build/bin/railgauge
# finds its data exactly as an installed one does.
set(RAILGAUGE_DATA_DIRS suites rules peaks schema)
# `cmake --install` and cpack package what is built and never start a build themselves (a
# package test must not rebuild the tree it is testing).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/share/railgauge)
foreach(dir ${RAILGAUGE_DATA_DIRS})
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/results/${dir} ${CMAKE_BINARY_DIR}/share/railgauge/${dir}
       SYMBOLIC)
  install(DIRECTORY results/${dir}/ DESTINATION share/railgauge/${dir})
endforeach()

# A node kit (scripts/node_kit.sh) puts the libraries a node lacks in lib/railgauge: the binary
# looks there first, so a kit runs from any directory without LD_LIBRARY_PATH. An installed
# package has no such directory and uses the system's libraries.
set_target_properties(railgauge PROPERTIES INSTALL_RPATH "$ORIGIN/../lib/railgauge")
install(TARGETS railgauge RUNTIME DESTINATION bin)
install(PROGRAMS scripts/slurm_burnin.sbatch scripts/slurm_rack.sbatch
                 deploy/slurm/railgauge-prolog.sh
        DESTINATION share/railgauge/slurm)
# What the Kubernetes burn-in Job runs after the burn-in, with the image's python3
# (deploy/k8s/burnin-job.yaml): data, run by the interpreter, so the package needs no Python.
install(FILES deploy/k8s/verdict_to_node.py DESTINATION share/railgauge/k8s)
# The exit statuses are told in docs/reliability.md and the burn-in in docs/burnin.md, which the
# README links to: they ship beside it.
install(FILES README.md docs/launch.md docs/check.md docs/calibrate.md docs/reference-runs.md
              docs/install.md docs/reliability.md docs/burnin.md
        DESTINATION share/doc/railgauge)

# cpack -G DEB (or scripts/package_deb.sh) writes railgauge_<version>_<arch>.deb. Its Depends
# come from dpkg-shlibdeps for the Debian libraries the binary links; the CUDA libraries of a
# toolkit outside Debian (cuBLASLt, NCCL) are NVIDIA's packages, named below.
set(CPACK_PACKAGE_NAME railgauge)
set(CPACK_PACKAGE_VENDOR railgauge)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Microbenchmarks and fabric validation for GPU training clusters")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_INSTALL_DIRECTORY railgauge)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "railgauge maintainers")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(_nvidia_depends "")
if(RAILGAUGE_HAS_CUDA)
  # The CUDA libraries come from NVIDIA's apt repository (cuda-keyring) on a GPU node; the major
  # version is the toolkit's, which is also the oldest driver branch the build can run on.
  string(REGEX MATCH "^[0-9]+" _cuda_major "${CUDAToolkit_VERSION}")
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" _cuda_mm "${CUDAToolkit_VERSION}")
  string(REPLACE "." "-" _cuda_pkg "${_cuda_mm}")
  list(APPEND _nvidia_depends "libcublas-${_cuda_pkg} | cuda-libraries-${_cuda_pkg}")
  # dpkg-shlibdeps finds no package for libraries outside dpkg's database: tell it where they
  # are, and that they are private to this package's view (their package is named above).
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CUDAToolkit_LIBRARY_DIR})
endif()
if(RAILGAUGE_HAS_NCCL)
  list(APPEND _nvidia_depends "libnccl2")
endif()
string(JOIN ", " CPACK_DEBIAN_PACKAGE_DEPENDS ${_nvidia_depends})
include(CPack)
