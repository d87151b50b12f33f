//! What a caller chooses for a lowering: the [`Profile`] and the [`LowerOptions`]. Read by the
//! dialects and by [`crate::lower`] (which re-exports them), so kept below both.

/// Which rewrites a lowering may use to reach a stronger mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Profile {
    /// Send the source as it is, dropping or relaxing only; never reshape values. The default.
    #[default]
    Conservative,
    /// Reshape values (optional → required-and-nullable, maps → entry lists, non-object roots
    /// → an envelope) so strict decoders can enforce more; undone exactly on the answer.
    Reshaping,
}

impl Profile {
    /// Every profile.
    pub const ALL: [Profile; 2] = [Profile::Conservative, Profile::Reshaping];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Conservative => "conservative",
            Profile::Reshaping => "reshaping",
        }
    }

    /// Parses a profile name.
    pub fn from_name(name: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// Options of a lowering. `LowerOptions::default()` suits most callers.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct LowerOptions {
    /// Conservative (default) or reshaping.
    pub profile: Profile,
    /// The schema or tool name sent to the provider. Default: the root `title` made valid for
    /// the provider, else `"response"`.
    pub name: Option<String>,
    /// A description sent with the schema or tool. Default: the root `description`.
    pub description: Option<String>,
    /// Groq: the model supports strict `json_schema` (e.g. `openai/gpt-oss-120b`). Default false.
    pub groq_strict: bool,
    /// OpenRouter: send `provider.require_parameters: true` so routes that would ignore
    /// `response_format` are skipped. Default true.
    pub openrouter_require_parameters: bool,
    /// Claude: extended thinking is on, which forbids forcing a tool. Default false.
    pub claude_thinking: bool,
    /// Reshaping profile: take `null` to mean "absent" on optional properties whose schema
    /// admits `null`. Such a property is then sent as a required nullable one, as it is,
    /// instead of as `null | {"value": …}` (what keeps `null` and absent apart), and `null` in
    /// the answer is read back as absence.
    ///
    /// Exact when the caller reads a missing member and `null` alike, as serde does for
    /// `Option<T>` fields (both are `None`): a source value with an explicit `null` there is
    /// sent, and read back, as one without the member. Otherwise `lift(encode(x)) = x` still
    /// holds for every `x` without such explicit nulls. Objects whose values the source
    /// compares whole (under `enum`, `const` or `uniqueItems`, where an explicit `null` and a
    /// missing member are different values) keep the wrapper.
    ///
    /// `None` (the default): on for schemas derived from Rust types ([`crate::derive`], with
    /// the `schemars` feature), off for schemas parsed from JSON.
    pub null_means_absent: Option<bool>,
}

impl Default for LowerOptions {
    fn default() -> Self {
        LowerOptions {
            profile: Profile::Conservative,
            name: None,
            description: None,
            groq_strict: false,
            openrouter_require_parameters: true,
            claude_thinking: false,
            null_means_absent: None,
        }
    }
}

impl LowerOptions {
    /// Same options with another profile.
    #[must_use]
    pub fn with_profile(mut self, profile: Profile) -> Self {
        self.profile = profile;
        self
    }

    /// Same options with a schema or tool name.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Same options with a description.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Same options, telling whether the Groq model supports strict mode.
    #[must_use]
    pub fn with_groq_strict(mut self, on: bool) -> Self {
        self.groq_strict = on;
        self
    }

    /// Same options, telling whether OpenRouter should require parameter support.
    #[must_use]
    pub fn with_openrouter_require_parameters(mut self, on: bool) -> Self {
        self.openrouter_require_parameters = on;
        self
    }

    /// Same options, telling whether Claude's extended thinking is on.
    #[must_use]
    pub fn with_claude_thinking(mut self, on: bool) -> Self {
        self.claude_thinking = on;
        self
    }

    /// Same options, telling whether `null` means absent on optional nullable properties
    /// (see [`LowerOptions::null_means_absent`]).
    #[must_use]
    pub fn with_null_means_absent(mut self, on: bool) -> Self {
        self.null_means_absent = Some(on);
        self
    }
}
