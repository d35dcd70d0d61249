/* Tool parameter schemas for Gemini: JSON Schema turned into the OpenAPI subset that
 * Gemini's function declarations accept, so one unsupported keyword never gets the
 * whole request rejected. */
#ifndef WINAGENT_LLM_FORMATS_SCHEMA_H
#define WINAGENT_LLM_FORMATS_SCHEMA_H

#include <cjson/cJSON.h>

/* Returns a new document (cJSON_Delete it), NULL only when out of memory.
 * - kept: type (upper case), description, title, nullable, enum of strings, properties,
 *   required (only names of kept properties), items, anyOf, min/max bounds, pattern,
 *   propertyOrdering, and the formats Gemini knows for each type;
 * - rewritten: type lists and null types -> nullable; oneOf -> anyOf; allOf merged;
 *   const -> a one-value enum; enums of numbers or booleans -> the allowed values in
 *   the description; local "$ref"s resolved (a cycle stops at a plain object);
 * - dropped: everything else ($schema, additionalProperties, default, examples, ...).
 * A node with no usable type becomes a STRING; an array without items gets STRING items. */
cJSON *schema_to_gemini(const cJSON *schema);

#endif
