# Every test winagent has, registered with ctest from the native build.
#   unit.*      portable core, native, cmocka           (tests/unit/test_*.c)
#   tool.*      test tooling checks (fake LLM server, the bench's serving part)
#               (tests/fake_llm, tests/bench/test_*.py)
#   build.*     properties of the win64 product          (tests/build/*.sh)
#   native.*    whole runs of the native winagent (fake desktop, fake LLM)
#               (tests/native/test_*.py)
#   wine.*      the real winagent.exe under Wine on a private Xvfb display
#               (tests/wine/test_*.py), between the wine.up / wine.down fixtures
#   e2e.*       whole runs: the loop against the fake LLM (tests/e2e/test_*.py)
#   fuzz.*      the libFuzzer targets of build/fuzz, a few seconds each (tests/fuzz)
#   docs.*      what the docs give users to copy or rely on: the CI workflow validates
#               (tests/ci), the bench table is baseline.json's, the contract names every
#               setting, command and action
#   lint.*      format, cppcheck, the layers' include order, the names, the docs' links, size
#               and the names they show in backticks
#   release.*   ./dev.sh release: reproducible, signed, its bill of materials, bundle and
#               winget manifest checked (tests/release)

file(GLOB unit_sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/unit/test_*.c)
foreach(src ${unit_sources})
  get_filename_component(name ${src} NAME_WE)
  string(REGEX REPLACE "^test_" "" short ${name})
  add_executable(${name} ${src})
  target_link_libraries(${name} PRIVATE winagent_fake PkgConfig::CMOCKA)
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests/unit)
  add_test(NAME unit.${short} COMMAND ${name})
  set_tests_properties(unit.${short} PROPERTIES TIMEOUT 60
    ENVIRONMENT "WINAGENT_SRC=${CMAKE_SOURCE_DIR};WINAGENT_TEST_DATA=${CMAKE_SOURCE_DIR}/tests/data")
  # The llm tests start a Python fake server per case: 20-40 s on a quiet machine, past
  # 100 s on a loaded one.
  # unit.core and unit.verify wait for every action's effect as the core does (core:
  # 45 s on a quiet machine, past 60 s under the sanitizers on a loaded one).
  if(short MATCHES "^(llm_|core$|verify$)")
    set_tests_properties(unit.${short} PROPERTIES TIMEOUT 240)
  endif()
endforeach()

# The image pipeline benchmark: a program to run by hand, not a test.
add_executable(bench_image ${CMAKE_SOURCE_DIR}/tests/bench/bench_image.c)
target_link_libraries(bench_image PRIVATE winagent_core)

find_program(PYTHON3 python3 REQUIRED)
if(EXISTS ${CMAKE_SOURCE_DIR}/tests/fake_llm/test_server.py)
  add_test(NAME tool.fake_llm COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/tests/fake_llm/test_server.py)
  set_tests_properties(tool.fake_llm PROPERTIES TIMEOUT 120)
endif()
# The bench's part 6 (tests/bench/serving.py), natively for 2 s a server.
add_test(NAME tool.bench_serving COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/tests/bench/test_serving.py)
set_tests_properties(tool.bench_serving PROPERTIES TIMEOUT 120 ENVIRONMENT
  "WINAGENT_NATIVE_EXE=$<TARGET_FILE:winagent>;PYTHONDONTWRITEBYTECODE=1")

# Whole runs of the native winagent on the fake desktop against the fake LLM.
file(GLOB native_tests CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/native/test_*.py)
foreach(script ${native_tests})
  get_filename_component(name ${script} NAME_WE)
  string(REGEX REPLACE "^test_" "" short ${name})
  add_test(NAME native.${short} COMMAND ${PYTHON3} ${script})
  set_tests_properties(native.${short} PROPERTIES TIMEOUT 300 ENVIRONMENT
    "WINAGENT_SRC=${CMAKE_SOURCE_DIR};WINAGENT_NATIVE_EXE=$<TARGET_FILE:winagent>;PYTHONPATH=${CMAKE_SOURCE_DIR}/tests/lib;PYTHONDONTWRITEBYTECODE=1")
endforeach()

# The GitHub Actions workflow of docs/ci, checked by the validator CI users would run.
add_test(NAME docs.ci_workflow COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/tests/ci/test_workflow.py)
set_tests_properties(docs.ci_workflow PROPERTIES TIMEOUT 120 ENVIRONMENT
  "WINAGENT_SRC=${CMAKE_SOURCE_DIR};WINAGENT_NATIVE_EXE=$<TARGET_FILE:winagent>;PYTHONDONTWRITEBYTECODE=1")

# The lint: the format check, cppcheck, the layers' include order, the names' prefixes
# and the docs' links, size and names in backticks (./dev.sh lint runs the same scripts), and tests that the
# include-order, the names and the docs checks fail when they should.
foreach(check format cppcheck)
  add_test(NAME lint.${check} COMMAND bash ${CMAKE_SOURCE_DIR}/tests/lint/${check}.sh)
  set_tests_properties(lint.${check} PROPERTIES TIMEOUT 300)
endforeach()
add_test(NAME lint.layers COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/tests/lint/layers.py)
add_test(NAME lint.layers_check COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/tests/lint/test_layers.py)
set_tests_properties(lint.layers lint.layers_check PROPERTIES TIMEOUT 120
  ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1")
add_test(NAME lint.names COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/tests/lint/names.py)
add_test(NAME lint.names_check COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/tests/lint/test_names.py)
set_tests_properties(lint.names lint.names_check PROPERTIES TIMEOUT 120
  ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1")
add_test(NAME lint.docs COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/tests/lint/docs.py)
add_test(NAME lint.docs_check COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/tests/lint/test_docs.py)
set_tests_properties(lint.docs PROPERTIES TIMEOUT 120 ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1")
# Each case reads the whole checkout's sources twice (about 50 s on a loaded machine).
set_tests_properties(lint.docs_check PROPERTIES TIMEOUT 300
  ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1")

# The docs against what they describe: the bench table of docs/bench.md is what
# tests/bench/baseline.json makes, and docs/contract.md names every setting, command and
# action of the tables.
add_test(NAME docs.bench_table COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/tests/bench/table.py --check)
add_test(NAME docs.contract COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/tests/lint/docs.py --contract)
set_tests_properties(docs.bench_table docs.contract PROPERTIES TIMEOUT 60
  ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1")

# The release (cmake/release/release.sh) built twice, in two folders, signed with a
# throwaway certificate: the same bytes, a signature that verifies and breaks when the exe
# is touched, and a bill of materials, an MCP bundle and a winget manifest that their
# schemas and tools accept. Two win64 builds: about ten minutes on a loaded 2-core machine.
add_test(NAME release.build_twice COMMAND ${PYTHON3} ${CMAKE_SOURCE_DIR}/tests/release/test_release.py)
set_tests_properties(release.build_twice PROPERTIES TIMEOUT 3000 ENVIRONMENT
  "WINAGENT_SRC=${CMAKE_SOURCE_DIR};WINAGENT_NATIVE_EXE=$<TARGET_FILE:winagent>;PYTHONDONTWRITEBYTECODE=1")

# The unit and native tests of the sanitizer build (build/asan), as one test here.
set(WINAGENT_ASAN_DIR "" CACHE PATH "the native build with -DWINAGENT_SANITIZE=ON")
if(WINAGENT_ASAN_DIR)
  add_test(NAME sanitize.unit_and_native
           COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${WINAGENT_ASAN_DIR}
                   -R "^(unit|native)[.]" --output-on-failure)
  set_tests_properties(sanitize.unit_and_native PROPERTIES TIMEOUT 1500
    ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1;UBSAN_OPTIONS=print_stacktrace=1")
endif()

# The fuzz targets of the clang build (build/fuzz): each from its seed corpus for a few
# seconds (about a minute in all); ./dev.sh fuzz SECONDS runs them longer.
set(WINAGENT_FUZZ_DIR "" CACHE PATH "the clang build with -DWINAGENT_FUZZ=ON")
set(WINAGENT_FUZZ_SECONDS 4 CACHE STRING "seconds each fuzz.* test runs its target")
if(WINAGENT_FUZZ_DIR)
  file(GLOB fuzz_targets CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_*.c)
  foreach(src ${fuzz_targets})
    get_filename_component(name ${src} NAME_WE)
    string(REGEX REPLACE "^fuzz_" "" short ${name})
    add_test(NAME fuzz.${short}
             COMMAND bash ${CMAKE_SOURCE_DIR}/tests/fuzz/run.sh ${WINAGENT_FUZZ_DIR}/${name}
                     ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/${short} ${WINAGENT_FUZZ_SECONDS})
    set_tests_properties(fuzz.${short} PROPERTIES TIMEOUT 120)
  endforeach()
endif()

# Tests of the Windows product need its build folder.
set(WINAGENT_WIN64_DIR "" CACHE PATH "build folder of the win64 build (for build.* and wine.* tests)")
# Programs the real-program suite drives that winagent did not write, cross-built from
# Debian's sources by cmake/build-deps.sh (./dev.sh deps), and an NSIS installer made
# here by Debian's makensis from tests/apps/suite_setup.nsi.
set(WINAGENT_PUTTY_DIR "" CACHE PATH "folder holding putty.exe (cmake/build-deps.sh putty)")
set(WINAGENT_PUZZLES_DIR "" CACHE PATH "folder holding mines.exe (cmake/build-deps.sh puzzles)")
find_program(MAKENSIS makensis)
set(suite_setup_exe "")
if(MAKENSIS)
  set(suite_setup_exe ${CMAKE_BINARY_DIR}/tests/apps/suite-setup.exe)
  add_custom_command(OUTPUT ${suite_setup_exe}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/tests/apps
    COMMAND ${MAKENSIS} -V2 -DOUTFILE=${suite_setup_exe}
            -DLICENCE=${CMAKE_SOURCE_DIR}/tests/apps/suite_setup_licence.txt
            ${CMAKE_SOURCE_DIR}/tests/apps/suite_setup.nsi
    DEPENDS ${CMAKE_SOURCE_DIR}/tests/apps/suite_setup.nsi
            ${CMAKE_SOURCE_DIR}/tests/apps/suite_setup_licence.txt
    COMMENT "makensis: the suite's installer")
  add_custom_target(suite_setup ALL DEPENDS ${suite_setup_exe})
endif()
if(WINAGENT_WIN64_DIR)
  set(test_env
    "PUTTY_EXE=${WINAGENT_PUTTY_DIR}/putty.exe"
    "MINES_EXE=${WINAGENT_PUZZLES_DIR}/mines.exe"
    "SUITE_SETUP_EXE=${suite_setup_exe}"
    "WINAGENT_SRC=${CMAKE_SOURCE_DIR}"
    "WINAGENT_EXE=${WINAGENT_WIN64_DIR}/winagent.exe"
    "WINAGENT_NATIVE_EXE=$<TARGET_FILE:winagent>"
    "TESTAPP_EXE=${WINAGENT_WIN64_DIR}/tests/apps/testapp.exe"
    "UIA_FAKE_DLL=${WINAGENT_WIN64_DIR}/tests/uia_fake/uia_fake.dll"
    "WINAGENT_WINE_STATE=${CMAKE_BINARY_DIR}/wine"
    "WINAGENT_BUILD_DIR=${CMAKE_BINARY_DIR}"
    "PYTHONPATH=${CMAKE_SOURCE_DIR}/tests/lib"
    "PYTHONDONTWRITEBYTECODE=1")

  file(GLOB build_checks CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/build/*.sh)
  foreach(script ${build_checks})
    get_filename_component(name ${script} NAME_WE)
    add_test(NAME build.${name} COMMAND bash ${script})
    set_tests_properties(build.${name} PROPERTIES ENVIRONMENT "${test_env}" TIMEOUT 60)
  endforeach()

  set(harness ${CMAKE_SOURCE_DIR}/tests/wine/harness.sh)
  add_test(NAME wine.up COMMAND bash ${harness} up)
  add_test(NAME wine.down COMMAND bash ${harness} down)
  set_tests_properties(wine.up PROPERTIES FIXTURES_SETUP wine ENVIRONMENT "${test_env}"
                       TIMEOUT 300 RUN_SERIAL TRUE)
  set_tests_properties(wine.down PROPERTIES FIXTURES_CLEANUP wine ENVIRONMENT "${test_env}"
                       TIMEOUT 60 RUN_SERIAL TRUE)

  file(GLOB wine_tests CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/wine/test_*.py
                                         ${CMAKE_SOURCE_DIR}/tests/e2e/test_*.py)
  foreach(script ${wine_tests})
    get_filename_component(name ${script} NAME_WE)
    get_filename_component(dir ${script} DIRECTORY)
    get_filename_component(kind ${dir} NAME)
    string(REGEX REPLACE "^test_" "" short ${name})
    add_test(NAME ${kind}.${short} COMMAND bash ${harness} run ${PYTHON3} ${script})
    set_tests_properties(${kind}.${short} PROPERTIES FIXTURES_REQUIRED wine RUN_SERIAL TRUE
                         ENVIRONMENT "${test_env}" TIMEOUT 600 SKIP_RETURN_CODE 77)
  endforeach()
  # The real-program suite (tests/lib/realtasks.py, realtasks_other.py) runs 53 tasks on
  # whole programs in each of its two tests (10 to 20 minutes each on a loaded 2-core
  # machine, the German and Chinese grounds brought up on the way); its report is left in
  # real_programs/ here.
  set_tests_properties(wine.real_programs_cli wine.real_programs_loop PROPERTIES TIMEOUT 2700)
endif()
