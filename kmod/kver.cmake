# Which kernels the module is built for and the QEMU guests boot: the
# list FAMFS_KVERS. Unless set, Debian 12's two: the release that
# linux-image-amd64 depends on (6.1) and the newest 6.12.*+deb12-amd64
# in /lib/modules (scripts/install-deps.sh installs one). Never "the
# newest kernel installed": installing another must not switch the run.
# A kernel without headers is left out. The first is the main kernel:
# FAMFS_KVER_FOUND, FAMFS_KDIR, FAMFS_KIMAGE and FAMFS_KMOD_KO describe it.
# For each K in FAMFS_KVERS_FOUND: FAMFS_KDIR_${K} (headers),
# FAMFS_KIMAGE_${K} (vmlinuz), FAMFS_KMOD_BUILD_${K} and FAMFS_KMOD_KO_${K}
# (where kmod/CMakeLists.txt builds famfs.ko) and FAMFS_KTAG_${K} ("61",
# "612": what the VM tests of K are named after). Included by kmod/ and
# tests/vm/.

set(FAMFS_KVERS "" CACHE STRING
    "kernel releases for kmod and the VM tests (list; first: the main one)")
set(FAMFS_KVER "" CACHE STRING "deprecated: FAMFS_KVERS with one kernel")
set(FAMFS_KHEADERS_ROOT /usr/src CACHE PATH
    "where the linux-headers-<release> directories are")

set(_famfs_kvers ${FAMFS_KVERS})
if(NOT _famfs_kvers AND FAMFS_KVER)
  set(_famfs_kvers ${FAMFS_KVER})
endif()
if(NOT _famfs_kvers)
  # Debian's default kernel: linux-image-amd64 depends on its image.
  execute_process(COMMAND dpkg-query -W -f=\${Depends} linux-image-amd64
                  OUTPUT_VARIABLE _famfs_dep ERROR_QUIET)
  string(REGEX MATCH "linux-image-([0-9][^ ,]*-amd64)" _m "${_famfs_dep}")
  if(CMAKE_MATCH_1)
    list(APPEND _famfs_kvers ${CMAKE_MATCH_1})
  endif()
  file(GLOB _famfs_612 RELATIVE /lib/modules /lib/modules/6.12.*+deb12-amd64)
  list(SORT _famfs_612 COMPARE NATURAL ORDER DESCENDING)
  foreach(_v ${_famfs_612})
    if(EXISTS ${FAMFS_KHEADERS_ROOT}/linux-headers-${_v}/Makefile)
      list(APPEND _famfs_kvers ${_v})
      break()
    endif()
  endforeach()
  # Not Debian's layout: the newest kernel with headers, as before.
  if(NOT _famfs_kvers)
    file(GLOB _famfs_any RELATIVE /lib/modules /lib/modules/*)
    list(SORT _famfs_any COMPARE NATURAL ORDER DESCENDING)
    foreach(_v ${_famfs_any})
      if(EXISTS ${FAMFS_KHEADERS_ROOT}/linux-headers-${_v}/Makefile)
        list(APPEND _famfs_kvers ${_v})
        break()
      endif()
    endforeach()
  endif()
endif()

set(FAMFS_KVERS_FOUND "")
foreach(_v ${_famfs_kvers})
  if(NOT EXISTS ${FAMFS_KHEADERS_ROOT}/linux-headers-${_v}/Makefile)
    message(STATUS "kmod: no headers for kernel ${_v}; left out")
    continue()
  endif()
  list(APPEND FAMFS_KVERS_FOUND ${_v})
  set(FAMFS_KDIR_${_v} ${FAMFS_KHEADERS_ROOT}/linux-headers-${_v})
  set(FAMFS_KIMAGE_${_v} "")
  if(EXISTS /boot/vmlinuz-${_v})
    set(FAMFS_KIMAGE_${_v} /boot/vmlinuz-${_v})
  endif()
  string(REGEX REPLACE "^([0-9]+)\\.([0-9]+).*" "\\1\\2" FAMFS_KTAG_${_v} ${_v})
  if(FAMFS_KVERS_FOUND STREQUAL _v)
    # the main kernel keeps the place docs and scripts name
    set(FAMFS_KMOD_BUILD_${_v} ${CMAKE_BINARY_DIR}/kmod/build)
  else()
    set(FAMFS_KMOD_BUILD_${_v} ${CMAKE_BINARY_DIR}/kmod/build-${_v})
  endif()
  set(FAMFS_KMOD_KO_${_v} ${FAMFS_KMOD_BUILD_${_v}}/kmod/famfs.ko)
endforeach()

set(FAMFS_KVER_FOUND "")
set(FAMFS_KDIR "")
set(FAMFS_KIMAGE "")
set(FAMFS_KMOD_BUILD ${CMAKE_BINARY_DIR}/kmod/build)
set(FAMFS_KMOD_KO ${FAMFS_KMOD_BUILD}/kmod/famfs.ko)
if(FAMFS_KVERS_FOUND)
  list(GET FAMFS_KVERS_FOUND 0 FAMFS_KVER_FOUND)
  set(FAMFS_KDIR ${FAMFS_KDIR_${FAMFS_KVER_FOUND}})
  set(FAMFS_KIMAGE ${FAMFS_KIMAGE_${FAMFS_KVER_FOUND}})
endif()
