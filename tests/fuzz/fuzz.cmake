# The libFuzzer targets (build/fuzz, CC=clang, -DWINAGENT_FUZZ=ON): tests/fuzz/fuzz_NAME.c
# -> fuzz_NAME, on the core and the fake desktop, under ASan and UBSan. The native build
# runs each from its corpus (tests/fuzz/corpus/NAME) for a bounded time as fuzz.NAME.
add_library(fuzz_harness OBJECT ${CMAKE_SOURCE_DIR}/tests/fuzz/harness.c)
target_link_libraries(fuzz_harness PUBLIC winagent_fake)

file(GLOB fuzz_sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_*.c)
foreach(src ${fuzz_sources})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  target_link_libraries(${name} PRIVATE fuzz_harness winagent_fake)
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
endforeach()

# The model's replies: one driver for every provider.
foreach(name fuzz_openai fuzz_gemini fuzz_responses fuzz_anthropic)
  target_sources(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests/fuzz/llm_driver.c)
endforeach()
# HTTP requests to `mcp --http`: civetweb below its sockets is the fake's.
target_sources(fuzz_mcp_http PRIVATE ${CMAKE_SOURCE_DIR}/tests/fuzz/civetweb_fake.c)
