# Which kernel the module (and the QEMU guest) uses: FAMFS_KVER, newest
# /lib/modules/*-amd64 that has both headers and a bootable image unless
# set. Sets FAMFS_KDIR (headers), FAMFS_KIMAGE (vmlinuz) and FAMFS_KMOD_KO,
# where kmod/CMakeLists.txt puts famfs.ko. Included by kmod/ and tests/vm/.

set(FAMFS_KVER "" CACHE STRING "kernel release for kmod and the VM tests")
if(NOT FAMFS_KVER)
  file(GLOB _famfs_kvers RELATIVE /lib/modules /lib/modules/*-amd64)
  list(SORT _famfs_kvers COMPARE NATURAL ORDER DESCENDING)
  foreach(_v ${_famfs_kvers})
    if(EXISTS /usr/src/linux-headers-${_v}/Makefile)
      set(FAMFS_KVER_FOUND ${_v})
      break()
    endif()
  endforeach()
else()
  set(FAMFS_KVER_FOUND ${FAMFS_KVER})
endif()

set(FAMFS_KDIR "")
set(FAMFS_KIMAGE "")
if(FAMFS_KVER_FOUND)
  if(EXISTS /usr/src/linux-headers-${FAMFS_KVER_FOUND}/Makefile)
    set(FAMFS_KDIR /usr/src/linux-headers-${FAMFS_KVER_FOUND})
  endif()
  if(EXISTS /boot/vmlinuz-${FAMFS_KVER_FOUND})
    set(FAMFS_KIMAGE /boot/vmlinuz-${FAMFS_KVER_FOUND})
  endif()
endif()
set(FAMFS_KMOD_BUILD ${CMAKE_BINARY_DIR}/kmod/build)
set(FAMFS_KMOD_KO ${FAMFS_KMOD_BUILD}/kmod/famfs.ko)
