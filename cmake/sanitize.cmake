# Sanitizer builds (FAMFS_SANITIZE): ASan+UBSan, or ThreadSanitizer.
#
# Under TSan every test runs through scripts/tsan-test.sh, which gives the
# test its own report directory (TSAN_OPTIONS log_path) and fails it when
# any process it started -- famfsd, famfs-fused, famfs-cli, a unit test --
# wrote a race report, even a daemon the test then killed. add_test() is
# wrapped here for that: CMake 3.25 has no TEST_LAUNCHER, and the wrapper
# must cover the tests of every directory, including ones added later.
string(TOLOWER "${FAMFS_SANITIZE}" _famfs_san)
# FAMFS_ASAN: this is the ASan+UBSan tree (tests that need ASan's own
# runtime options, e.g. an allocator that refuses, check this, not
# FAMFS_SANITIZE, which is set in the TSan tree too).
set(FAMFS_ASAN OFF)
if(_famfs_san STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
  set(FAMFS_TSAN_WRAP ${CMAKE_CURRENT_LIST_DIR}/../scripts/tsan-test.sh)
  set(FAMFS_TSAN_REPORTS ${CMAKE_BINARY_DIR}/tsan-reports)
  set(FAMFS_TSAN_SUPP ${CMAKE_CURRENT_LIST_DIR}/../scripts/tsan.supp)
  function(add_test)
    cmake_parse_arguments(T "COMMAND_EXPAND_LISTS" "NAME;WORKING_DIRECTORY"
                          "COMMAND;CONFIGURATIONS" ${ARGN})
    if(NOT T_NAME)        # the old add_test(name cmd ...) form: not used here
      message(FATAL_ERROR "add_test(${ARGN}): use add_test(NAME ... COMMAND ...)")
    endif()
    list(POP_FRONT T_COMMAND cmd)
    if(TARGET ${cmd})     # add_test resolves a target name only in first place
      set(cmd $<TARGET_FILE:${cmd}>)
    endif()
    set(extra)
    if(T_WORKING_DIRECTORY)
      list(APPEND extra WORKING_DIRECTORY ${T_WORKING_DIRECTORY})
    endif()
    if(T_CONFIGURATIONS)
      list(APPEND extra CONFIGURATIONS ${T_CONFIGURATIONS})
    endif()
    if(T_COMMAND_EXPAND_LISTS)
      list(APPEND extra COMMAND_EXPAND_LISTS)
    endif()
    _add_test(NAME ${T_NAME} ${extra}
              COMMAND ${FAMFS_TSAN_WRAP} ${FAMFS_TSAN_REPORTS}/${T_NAME}
                      ${FAMFS_TSAN_SUPP} ${cmd} ${T_COMMAND})
  endfunction()
elseif(FAMFS_SANITIZE)
  set(FAMFS_ASAN ON)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  # GCC's UBSan runtime as a shared library has a 6 MB .bss that
  # LeakSanitizer scans at every process exit (~0.035 CPU-s a process);
  # linked statically each binary carries only the ~0.6 MB it uses. UB in
  # the executable or in a shared library (each with its own copy) is
  # still reported and fatal (docs/testing.md).
  if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
    add_link_options(-static-libubsan)
  endif()
endif()
