//! Provider error texts mapped back to the capability data they contradict.
//!
//! A request schemalect built follows its target's capability table and limits, so a 400 for
//! it means one of them is wrong or out of date: a keyword row (the provider now refuses a
//! keyword the row says may be sent), a limit (a size or count the lowering did not check, or
//! checks at the wrong threshold), or the route itself (a wire shape or mode the provider no
//! longer takes). [`contradiction`] reads the provider's error body and says which, with the
//! source of the row, so a gateway can retry the next weaker mode and a maintainer knows which
//! line of which table to fix.
//!
//! The texts matched are the ones recorded in the sourced facts (`design/providers.md` §6,
//! `design/providers-2026-12.md` §3); each entry names where its text was recorded.

use super::capabilities;
use crate::target::Target;

/// What a provider's refusal contradicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Contradicted {
    /// A keyword row of the target's capability table (the row's `keyword`).
    Keyword(&'static str),
    /// A limit the provider enforces on one request, named.
    Limit(&'static str),
    /// The route: the wire shape, or the mode it selects.
    Route(&'static str),
}

/// A provider refusal mapped back onto schemalect's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contradiction {
    /// The target the request was built for.
    pub target: Target,
    /// The row, limit or route the refusal contradicts.
    pub contradicted: Contradicted,
    /// The source of what is contradicted: for a keyword, the capability row's `source`; for
    /// a limit or a route, where the limit or the wire shape is documented.
    pub source: &'static str,
    /// Where this error text was recorded.
    pub recorded: &'static str,
}

/// The provider families whose error texts share a shape.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    OpenAi,
    Claude,
    Gemini,
    /// llama.cpp's own server (`llama-server`).
    LlamaCpp,
}

fn family(target: Target) -> Family {
    match target {
        Target::OpenAi
        | Target::OpenAiResponses
        | Target::Groq
        | Target::Mistral
        | Target::OpenRouter => Family::OpenAi,
        Target::Claude | Target::ClaudeNative | Target::BedrockClaude => Family::Claude,
        // Ollama's own errors name no keyword; llama.cpp's grammar errors are its patterns.
        // xgrammar's errors through Ollama are not recorded yet: read as Ollama's.
        Target::Ollama | Target::OllamaMlx => Family::OpenAi,
        Target::LlamaServer => Family::LlamaCpp,
        Target::Gemini | Target::GeminiJson | Target::GeminiInteractions | Target::VertexGemini => {
            Family::Gemini
        }
    }
}

/// How a matched text names what it contradicts.
#[derive(Clone, Copy)]
enum Then {
    /// A fixed keyword row.
    Row(&'static str),
    /// The keyword quoted (or written bare) just before the needle: `'default' is not permitted`.
    NameBefore,
    /// The first keyword among the next `n` words after the needle:
    /// `properties maximum, minimum are not supported`, `Unknown name "minimum"`.
    NameAfter(usize),
    /// A limit, with where it is documented.
    Limit(&'static str, &'static str),
    /// The route, with where its wire is documented.
    Route(&'static str, &'static str),
}

/// One recorded error text: its family, a lower-case needle, what it names, where recorded.
struct Known {
    family: Family,
    needle: &'static str,
    then: Then,
    recorded: &'static str,
}

const fn known(family: Family, needle: &'static str, then: Then, recorded: &'static str) -> Known {
    Known {
        family,
        needle,
        then,
        recorded,
    }
}

const O_LIMITS: &str = "https://platform.openai.com/docs/guides/structured-outputs#objects-have-limitations-on-nesting-depth-and-size (providers.md O1, §1.4)";
const A_LIMITS: &str = "https://platform.claude.com/docs/en/build-with-claude/structured-outputs (providers.md A1, §4.4); effective per-schema thresholds: rig `tests/cassettes/anthropic/strict_schema_limits/` (providers-2026-12.md §3.2)";
const BEDROCK: &str = "https://github.com/vercel/ai/issues/14773 , https://github.com/vercel/ai/pull/15288 , https://github.com/maximhq/bifrost/pull/3184 (providers-2026-12.md §3.2)";
const RIG_LIMITS: &str =
    "rig `tests/cassettes/anthropic/strict_schema_limits/*.yaml` (providers-2026-12.md §3.2)";
const RIG_MATRIX: &str =
    "rig `tests/cassettes/anthropic/strict_schema_matrix/*.yaml` (providers-2026-12.md §3.2)";

const RIG_LLAMA: &str = "rig `tests/cassettes/llamacpp/structured_output_matrix/schema_and_grammar_conflict.yaml` (llama-server b10499, providers-2026-12.md §3.4)";
const LLAMA_REPETITION: &str = "https://github.com/ggml-org/llama.cpp/issues/27087 , https://github.com/ggml-org/llama.cpp/issues/27859 , https://github.com/ggml-org/llama.cpp/pull/28469 (`MAX_REPETITION_THRESHOLD = 2000`, providers-2026-12.md §3.4)";

/// Most specific first: the first entry whose needle occurs (and, for the name rules, whose
/// name is a row of the target's table) decides.
#[rustfmt::skip]
static KNOWN: &[Known] = &[
    // OpenAI strict (providers.md §6 I-O*; providers-2026-12.md §3.1, §3.5).
    known(Family::OpenAi, "is required to be supplied and to be false", Then::Row("additionalProperties"), "https://github.com/lastmile-ai/openai-agents-mcp/issues/2 (providers.md I-O1)"),
    known(Family::OpenAi, "'required' is required to be supplied", Then::Row("required"), "https://github.com/vercel/ai/issues/6484 (providers.md I-O0)"),
    known(Family::OpenAi, "extra required key", Then::Row("required"), "https://github.com/gents-ai/gents/issues/542 (providers-2026-12.md §3.1)"),
    known(Family::OpenAi, "is not a valid format", Then::Row("format"), "https://github.com/can1357/oh-my-pi/issues/206 (providers.md I-O8)"),
    known(Family::OpenAi, "regex lookaround is not supported", Then::Row("pattern"), "https://github.com/vercel/ai/pull/21037 (providers.md I-O10)"),
    known(Family::OpenAi, "array schema missing items", Then::Row("items"), "https://github.com/gumloop/guMCP/pull/136"),
    known(Family::OpenAi, "object schema missing properties", Then::Row("properties"), "https://github.com/spring-projects/spring-ai/issues/4776"),
    known(Family::OpenAi, "must not share identical first keys", Then::Row("anyOf"), "https://github.com/openai/openai-python/issues/2193 (providers.md S-O1)"),
    known(Family::OpenAi, "levels of nesting exceeds limit", Then::Limit("nesting depth", O_LIMITS), "https://github.com/tidyverse/ellmer/issues/671 (providers.md I-O13)"),
    known(Family::OpenAi, "must contain the word 'json'", Then::Route("`json_object` needs the word \"JSON\" in the messages", "https://platform.openai.com/docs/guides/structured-outputs#json-mode (providers.md O1, I-O14)"), "https://github.com/meta-llama/PurpleLlama/issues/94 (providers.md I-O14)"),
    known(Family::OpenAi, "no endpoints available matching your guardrail restrictions", Then::Route("strict `json_schema` leaves OpenRouter no eligible endpoint", "https://openrouter.ai/docs/structured-outputs (providers.md R1)"), "https://github.com/OpenRouterTeam/ai-sdk-provider/issues/483 (providers-2026-12.md §3.5)"),
    known(Family::OpenAi, "is not permitted", Then::NameBefore, "https://github.com/567-labs/instructor/issues/1074 , https://github.com/jina-ai/node-DeepResearch/issues/79 , https://github.com/openai/openai-node/issues/2152 (providers.md I-O2, I-O4, I-O6/7)"),
    // Claude strict tools and `output_config.format` (providers.md §6 I-A*; providers-2026-12.md §3.2).
    known(Family::Claude, "output_config.format: extra inputs are not permitted", Then::Route("`output_config.format` is refused on Bedrock: use the forced tool (`bedrock-claude`)", BEDROCK), BEDROCK),
    known(Family::Claude, "too many strict tools", Then::Limit("strict tools per request (20)", A_LIMITS), RIG_LIMITS),
    known(Family::Claude, "too many optional parameters", Then::Limit("optional properties (24 per request, fewer inside one schema)", A_LIMITS), RIG_LIMITS),
    known(Family::Claude, "too many parameters with union types", Then::Limit("union-typed properties (16 per request, fewer inside one schema)", A_LIMITS), RIG_LIMITS),
    known(Family::Claude, "schema is too complex for compilation", Then::Limit("per-schema complexity (16 union-typed or 24 optional properties in one schema already fail)", A_LIMITS), "rig `tests/cassettes/anthropic/strict_schema_limits/{sixteen_union,twenty_four_optional}_parameters_in_one_schema_hit_internal_limit.yaml` (providers-2026-12.md §3.2)"),
    known(Family::Claude, "compiled grammar is too large", Then::Limit("compiled grammar size (model-dependent)", A_LIMITS), "https://github.com/anthropics/anthropic-sdk-python/issues/1185 , https://github.com/alphaXiv/agents/pull/49 (providers.md I-A9, providers-2026-12.md §3.2)"),
    known(Family::Claude, "circular reference detected", Then::Limit("no recursive definitions in strict schemas", A_LIMITS), RIG_MATRIX),
    known(Family::Claude, "thinking may not be enabled when tool_choice forces tool use", Then::Route("a forced tool with extended thinking", "https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use (providers.md A5)"), "https://github.com/mastra-ai/mastra/issues/7507 (providers.md I-A5)"),
    known(Family::Claude, "does not support oneof, allof, or anyof at the top level", Then::Row("anyOf"), "https://github.com/langchain-ai/langchain/issues/39271 (providers.md I-A1/2)"),
    known(Family::Claude, "input_schema.type: field required", Then::Row("type"), RIG_MATRIX),
    known(Family::Claude, "input should be 'object'", Then::Row("type"), RIG_MATRIX),
    known(Family::Claude, "values other than 0 or 1 are not supported", Then::Row("minItems"), "https://github.com/ghostlobster/memorize-everything/issues/93 (providers.md I-A8)"),
    known(Family::Claude, "type, propert", Then::NameAfter(4), "https://github.com/earendil-works/pi/issues/9953 , https://github.com/agentjido/req_llm/issues/302 (providers.md I-A6, I-A7)"),
    // llama-server (providers-2026-12.md §3.4).
    known(Family::LlamaCpp, "cannot use both json_schema and grammar", Then::Route("`grammar` sent beside `json_schema` (llama-server takes one)", RIG_LLAMA), RIG_LLAMA),
    known(Family::LlamaCpp, "failed to parse grammar", Then::Limit("llama.cpp repetition threshold (bounds from 2,000 up)", LLAMA_REPETITION), LLAMA_REPETITION),
    // Gemini, all hosts and wires (providers.md §6 I-G*; providers-2026-12.md §3.3).
    known(Family::Gemini, "should be non-empty for object type", Then::Row("properties"), "https://github.com/agno-agi/agno/issues/2112 (providers.md I-G1..3)"),
    known(Family::Gemini, "enum only allowed for string type", Then::Row("enum"), "https://github.com/decolua/9router/pull/380 (providers.md I-G11)"),
    known(Family::Gemini, "(type_string)", Then::Row("enum"), "https://github.com/microsoft/azure-devops-mcp/issues/145 (providers.md I-G4)"),
    known(Family::Gemini, "are supported for string type", Then::Row("format"), "https://github.com/google-gemini/gemini-cli/issues/3178 (providers.md I-G5)"),
    known(Family::Gemini, "didnt specify the schema type field", Then::Row("type"), "https://github.com/brightwave-inc/tidebreak/pull/1537 (providers-2026-12.md §3.3)"),
    known(Family::Gemini, "too many states for serving", Then::Limit("schema states", "https://ai.google.dev/gemini-api/docs/structured-output (providers.md GG6)"), "https://github.com/googleapis/python-genai/issues/660 (providers.md I-G14/15)"),
    known(Family::Gemini, "exceeds the maximum allowed nesting depth", Then::Limit("nesting depth", "https://ai.google.dev/gemini-api/docs/structured-output (providers.md GG6)"), "https://github.com/googleapis/js-genai/issues/882 (providers-2026-12.md §3.3)"),
    known(Family::Gemini, "unknown name", Then::NameAfter(1), "https://github.com/prism-php/prism/issues/974 , https://github.com/tashfeenahmed/freellmapi/issues/97 , https://github.com/theopenco/llmgateway/issues/1763 , https://github.com/decolua/9router/pull/3018 (providers.md I-G6..9)"),
];

/// Which capability row, limit or route a provider's error `body` (the whole response body,
/// or just its message) contradicts, for a request built for `target`. `None` when the text
/// is not one of the recorded ones, or names a keyword that has no row in the target's table
/// (then there is no row to fix, only a message to record).
pub fn contradiction(target: Target, body: &str) -> Option<Contradiction> {
    let text = unescape_quotes(&body.to_lowercase());
    let fam = family(target);
    let table = capabilities(target);
    for k in KNOWN.iter().filter(|k| k.family == fam) {
        let Some(at) = text.find(k.needle) else {
            continue;
        };
        let (contradicted, source) = match k.then {
            Then::Row(keyword) => match table.rows.iter().find(|r| r.keyword == keyword) {
                Some(r) => (Contradicted::Keyword(r.keyword), r.source),
                None => continue,
            },
            Then::NameBefore => match name_before(&text, at).and_then(|n| row_named(target, n)) {
                Some(r) => (Contradicted::Keyword(r.keyword), r.source),
                None => continue,
            },
            Then::NameAfter(n) => {
                let rest = text.get(at + k.needle.len()..).unwrap_or("");
                match names(rest).take(n).find_map(|n| row_named(target, n)) {
                    Some(r) => (Contradicted::Keyword(r.keyword), r.source),
                    None => continue,
                }
            }
            Then::Limit(name, source) => (Contradicted::Limit(name), source),
            Then::Route(name, source) => (Contradicted::Route(name), source),
        };
        return Some(Contradiction {
            target,
            contradicted,
            source,
            recorded: k.recorded,
        });
    }
    None
}

/// The row of `target`'s table whose keyword is `name` (compared without case: the text was
/// lower-cased).
fn row_named(target: Target, name: &str) -> Option<&'static super::caps::Row> {
    capabilities(target)
        .rows
        .iter()
        .find(|r| r.keyword.eq_ignore_ascii_case(name))
}

/// A raw JSON body escapes the quotes around names (`Unknown name \"minimum\"`).
fn unescape_quotes(text: &str) -> String {
    text.replace("\\\"", "\"")
}

/// The word just before byte `at`, without its quotes: `'default' is not permitted`.
fn name_before(text: &str, at: usize) -> Option<&str> {
    let head = text.get(..at)?.trim_end();
    let head = head.trim_end_matches(['\'', '"', '`']);
    let start = head
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '$' || c == '_'))
        .map_or(0, |i| i + 1);
    head.get(start..).filter(|n| !n.is_empty())
}

/// The words of `text`, in order (quotes and punctuation are separators).
fn names(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '$' || c == '_'))
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keyword(target: Target, body: &str) -> Option<&'static str> {
        match contradiction(target, body)?.contradicted {
            Contradicted::Keyword(k) => Some(k),
            _ => None,
        }
    }

    fn row_source(target: Target, keyword: &str) -> &'static str {
        capabilities(target)
            .rows
            .iter()
            .find(|r| r.keyword == keyword)
            .map(|r| r.source)
            .unwrap_or_default()
    }

    /// The recorded texts of providers.md §6 and providers-2026-12.md §3, verbatim (the parts
    /// the sources quote), each with the row it contradicts.
    #[test]
    fn recorded_keyword_refusals_name_their_rows() {
        let cases: &[(Target, &str, &str)] = &[
            (Target::OpenAi, "Invalid schema for response_format 'answer': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'roles'", "required"),
            (Target::OpenAi, "'additionalProperties' is required to be supplied and to be false", "additionalProperties"),
            (Target::OpenAiResponses, "Invalid schema for response_format 'answer': In context=('properties', 'a'), 'default' is not permitted.", "default"),
            (Target::OpenAi, "maxLength is not permitted", "maxLength"),
            (Target::OpenAi, "'oneOf' is not permitted", "oneOf"),
            (Target::OpenAi, "'uri' is not a valid format", "format"),
            (Target::OpenAi, "Invalid JSON schema: regex lookaround is not supported", "pattern"),
            (Target::OpenAiResponses, "Invalid schema for function 'search': In context=(), Extra required key 'filter' supplied.", "required"),
            (Target::Groq, "array schema missing items", "items"),
            (Target::Claude, "tools.0.custom: For 'integer' type, properties maximum, minimum are not supported", "maximum"),
            (Target::ClaudeNative, "output_format.schema: For 'integer' type, property 'minimum' is not supported", "minimum"),
            (Target::BedrockClaude, "For 'array' type, 'minItems' values other than 0 or 1 are not supported", "minItems"),
            (Target::Claude, "input_schema does not support oneOf, allOf, or anyOf at the top level", "anyOf"),
            (Target::Claude, "tools.0.custom.input_schema.type: Field required", "type"),
            (Target::Gemini, "* GenerateContentRequest.generation_config.response_schema.properties[\"meta\"].properties: should be non-empty for OBJECT type", "properties"),
            (Target::Gemini, "Invalid value at 'generation_config.response_schema.properties[0].value.enum[0]' (TYPE_STRING), 0", "enum"),
            (Target::Gemini, "format: only 'enum' and 'date-time' are supported for STRING type", "format"),
            (Target::Gemini, "Invalid JSON payload received. Unknown name \"type\" at 'generation_config.response_schema': Proto field is not repeating, cannot start list.", "type"),
            (Target::VertexGemini, "Invalid JSON payload received. Unknown name \"exclusiveMinimum\" at 'tools[0].function_declarations[0].parameters.properties[0].value': Cannot find field.", "exclusiveMinimum"),
            (Target::Gemini, "Unknown name \"uniqueItems\"", "uniqueItems"),
            (Target::GeminiJson, "function declaration enum only allowed for STRING type", "enum"),
            (Target::GeminiInteractions, "schema didnt specify the schema type field", "type"),
        ];
        for (target, text, want) in cases {
            let c = contradiction(*target, text)
                .unwrap_or_else(|| panic!("[{target}] not recognised: {text}"));
            assert_eq!(
                c.contradicted,
                Contradicted::Keyword(want),
                "[{target}] {text}"
            );
            assert_eq!(c.source, row_source(*target, want), "[{target}] {text}");
            assert_eq!(c.target, *target);
            assert!(c.recorded.contains("https://") || c.recorded.contains("rig"));
        }
    }

    #[test]
    fn raw_json_bodies_are_read_too() {
        let body = r#"{"error": {"code": 400, "message": "Invalid JSON payload received. Unknown name \"additionalProperties\" at 'generation_config.response_schema': Cannot find field.", "status": "INVALID_ARGUMENT"}}"#;
        assert_eq!(keyword(Target::Gemini, body), Some("additionalProperties"));
        let body = r#"{"error": {"message": "Invalid schema for response_format 'x': In context=(), 'uniqueItems' is not permitted.", "type": "invalid_request_error", "param": "response_format", "code": null}}"#;
        assert_eq!(keyword(Target::OpenAi, body), Some("uniqueItems"));
    }

    #[test]
    fn recorded_limit_and_route_refusals_are_named() {
        let cases: &[(Target, &str, &str)] = &[
            (Target::Claude, "Too many strict tools (21). The maximum number of strict tools supported is 20.", "strict tools"),
            (Target::Claude, "Schemas contains too many optional parameters (25), which would make grammar compilation inefficient. Reduce the number of optional parameters in your tool schemas (limit: 24).", "optional properties"),
            (Target::ClaudeNative, "Schemas contains too many parameters with union types (17 parameters with type arrays or anyOf), which would make grammar compilation inefficient. (limit: 16 parameters with unions).", "union-typed"),
            (Target::BedrockClaude, "Schema is too complex for compilation. Try reducing the number of tools or simplifying tool schemas.", "per-schema complexity"),
            (Target::Claude, "The compiled grammar is too large, which would cause performance issues.", "compiled grammar"),
            (Target::LlamaServer, "failed to parse grammar", "repetition threshold"),
            (Target::Claude, "Circular reference detected in schema definitions: Node -> Node. Self-referencing or mutually-referencing definitions are not supported.", "recursive"),
            (Target::OpenAi, "Invalid schema for response_format 'x': 6 levels of nesting exceeds limit of 5.", "nesting depth"),
            (Target::Gemini, "A schema in GenerationConfig in the request exceeds the maximum allowed nesting depth.", "nesting depth"),
            (Target::Gemini, "The specified schema produces a constraint that has too many states for serving.", "schema states"),
        ];
        for (target, text, want) in cases {
            let c = contradiction(*target, text)
                .unwrap_or_else(|| panic!("[{target}] not recognised: {text}"));
            match c.contradicted {
                Contradicted::Limit(name) => assert!(name.contains(want), "[{target}] {name}"),
                other => panic!("[{target}] {text}: {other:?}"),
            }
            assert!(c.source.contains("https://"), "{}", c.source);
        }
        let routes: &[(Target, &str, &str)] = &[
            (Target::ClaudeNative, "output_config.format: Extra inputs are not permitted", "Bedrock"),
            (Target::OpenRouter, "No endpoints available matching your guardrail restrictions and data policy", "OpenRouter"),
            (Target::OpenAi, "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", "JSON"),
            (Target::Claude, "Thinking may not be enabled when tool_choice forces tool use.", "thinking"),
            (Target::LlamaServer, "{\"error\":{\"code\":500,\"message\":\"Cannot use both json_schema and grammar\",\"type\":\"server_error\"}}", "grammar"),
        ];
        for (target, text, want) in routes {
            match contradiction(*target, text).map(|c| c.contradicted) {
                Some(Contradicted::Route(name)) => {
                    assert!(name.contains(want), "[{target}] {name}")
                }
                other => panic!("[{target}] {text}: {other:?}"),
            }
        }
    }

    #[test]
    fn unknown_texts_and_other_families_texts_say_nothing() {
        assert_eq!(contradiction(Target::OpenAi, "rate limit reached"), None);
        assert_eq!(contradiction(Target::OpenAi, ""), None);
        // A Gemini text on an OpenAI route is not OpenAI's error.
        assert_eq!(
            contradiction(Target::OpenAi, "should be non-empty for OBJECT type"),
            None
        );
        // Mistral's "Extra inputs are not permitted" names a request field, not a keyword.
        assert_eq!(
            contradiction(Target::Mistral, "422 Extra inputs are not permitted"),
            None
        );
        // A name that is no row of the table: no row to fix.
        assert_eq!(
            contradiction(Target::Gemini, "Unknown name \"response\" at 'contents[2]'"),
            None
        );
    }
}
