/* OpenAI-compatible replies (whole, streamed, errors) and their tool arguments. */
#include "tests/fuzz/harness.h"
#include "tests/fuzz/llm_driver.h"

LLM_FUZZ_TARGET(llm_openai_ops)
