# The availability study (analysis/examples/): recompute it and compare with the committed CSV byte for
# byte, plus the properties the model guarantees. Included from tests/CMakeLists.txt.
# Debian's python3 (found as NVLSIM_PYTHON in analysis/) has numpy; a python3 earlier on PATH may not.
if(NVLSIM_PYTHON)
  set(availability_python ${NVLSIM_PYTHON})
else()
  set(availability_python python3)
endif()
add_test(NAME availability_study
         COMMAND ${availability_python} ${PROJECT_SOURCE_DIR}/analysis/examples/availability_study.py
                 --check ${PROJECT_SOURCE_DIR}/analysis/examples/availability.csv)
