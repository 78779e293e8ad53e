# cmake --install and cpack, checked end to end (tests/install/check).
add_test(NAME "install tree and Debian package run on their own"
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/check ${PROJECT_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/install-check)
set_tests_properties("install tree and Debian package run on their own" PROPERTIES LABELS install)
