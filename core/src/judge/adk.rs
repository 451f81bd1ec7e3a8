//! The arithmetic of google-adk's judged metrics, as ADK does it:
//! reading each judge answer (rubric verdicts, the final-response label,
//! sentences and their groundedness labels), the vote over samples, the
//! score of an invocation, of a run and of a case, with Python's exact
//! `statistics.mean`, and the effective threshold those steps make of a
//! stated one. The prompts are this tool's own; what an answer must look
//! like, and what a missing or unreadable one counts for, is ADK's.
//! (`tests/conformance/adk_judged/SEMANTICS.md` has the rules in full.)

use super::{ChatMessage, Judge, JudgeRequest, JudgeUsage, prompt};
use crate::trajectory::Message;
use regex::Regex;
use serde_json::Value;
use std::sync::LazyLock;
use unicode_normalization::UnicodeNormalization;

/// One of google-adk's judged metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    RubricBasedFinalResponseQuality,
    RubricBasedToolUseQuality,
    /// One judgement of the whole conversation, as ADK makes it on the
    /// last invocation only.
    RubricBasedMultiTurnTrajectoryQuality,
    Hallucinations,
    FinalResponseMatch,
}

impl Metric {
    /// ADK's metric name, the key of its verdicts.
    pub fn adk_name(self) -> &'static str {
        match self {
            Metric::RubricBasedFinalResponseQuality => "rubric_based_final_response_quality_v1",
            Metric::RubricBasedToolUseQuality => "rubric_based_tool_use_quality_v1",
            Metric::RubricBasedMultiTurnTrajectoryQuality => {
                "rubric_based_multi_turn_trajectory_quality_v1"
            }
            Metric::Hallucinations => "hallucinations_v1",
            Metric::FinalResponseMatch => "final_response_match_v2",
        }
    }

    pub fn uses_rubrics(self) -> bool {
        matches!(
            self,
            Metric::RubricBasedFinalResponseQuality
                | Metric::RubricBasedToolUseQuality
                | Metric::RubricBasedMultiTurnTrajectoryQuality
        )
    }
}

/// One judged metric, ready to ask: what it asks, how often, and its pass mark.
#[derive(Clone, Debug, PartialEq)]
pub struct AdkJudge {
    pub metric: Metric,
    pub threshold: f64,
    pub samples: u32,
    pub temperature: Option<f64>,
    pub rubrics: Vec<Rubric>,
    pub include_intermediate: bool,
    pub evaluate_intermediate: bool,
    /// The expected final response of each invocation.
    pub expected: Vec<String>,
}

/// A rubric: the property the judge checks, by id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rubric {
    pub id: String,
    pub text: String,
}

/// One rubric's verdict: 1.0 yes, 0.0 no, `None` when the judge gave none
/// that could be read.
pub type RubricScore = (String, Option<f64>);

/// ADK's normalisation of rubric texts before comparing them: NFKC,
/// typographic quotes and dashes made plain, whitespace runs one space,
/// markdown decoration stripped, lowercase.
fn normalize(text: &str) -> String {
    let plain: String = text
        .nfkc()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' => '\'',
            '\u{201c}' | '\u{201d}' => '"',
            '\u{2013}' | '\u{2014}' => '-',
            other => other,
        })
        .collect();
    let spaced = plain.split_whitespace().collect::<Vec<_>>().join(" ");
    let decorated = |c: char| " *_`#>-\u{2022}\"'".contains(c);
    spaced.trim_matches(decorated).to_lowercase()
}

/// Python's `(?m)^\s*LABEL: (.*)$`: a line (after blank lines or leading
/// whitespace) starting with the label; its byte offset and the rest.
fn line_starts<'t>(text: &'t str, label: &str) -> Vec<(usize, &'t str)> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches('\n');
        let trimmed = content.trim_start();
        if let Some(rest) = trimmed.strip_prefix(label) {
            out.push((
                offset + (content.len() - trimmed.len()),
                rest.trim_end_matches('\r'),
            ));
        }
        offset += line.len();
    }
    out
}

/// Python's `(?<=LABEL)(.*)` with `findall`: the rest of each line after
/// the label's first occurrence in it.
fn after_label<'t>(text: &'t str, label: &str) -> Vec<&'t str> {
    text.split('\n')
        .filter_map(|line| line.find(label).map(|i| &line[i + label.len()..]))
        .collect()
}

/// One judge answer about rubrics: each block's verdict, attributed to a
/// rubric of `rubrics` by its id or else by its property text. Counts of
/// properties, rationales and verdicts that differ void the whole answer.
pub fn rubric_answer(text: &str, rubrics: &[Rubric]) -> Vec<RubricScore> {
    let properties = line_starts(text, "Property: ");
    let ids = line_starts(text, "ID: ");
    let rationales = after_label(text, "Rationale: ");
    let verdicts: Vec<Option<f64>> = after_label(text, "Verdict: ")
        .into_iter()
        .map(|v| {
            let v = v.to_lowercase();
            if v.contains("yes") {
                Some(1.0)
            } else if v.contains("no") {
                Some(0.0)
            } else {
                None
            }
        })
        .collect();
    if properties.len() != rationales.len() || properties.len() != verdicts.len() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, ((start, property), score)) in properties.iter().zip(&verdicts).enumerate() {
        let previous = if i > 0 {
            Some(properties[i - 1].0)
        } else {
            None
        };
        let id = ids
            .iter()
            .rfind(|(at, _)| previous.is_none_or(|p| *at > p) && at < start)
            .map(|(_, id)| id.trim())
            .filter(|id| !id.is_empty());
        let by_id = id.and_then(|id| rubrics.iter().find(|r| r.id == id));
        let wanted = normalize(property);
        let rubric = by_id.or_else(|| rubrics.iter().find(|r| normalize(&r.text) == wanted));
        if let Some(rubric) = rubric {
            out.push((rubric.id.clone(), *score));
        }
    }
    out
}

/// The majority per rubric over an invocation's samples, in the order the
/// rubrics first appear: more yes than no is 1.0, a tie or more no is 0.0,
/// no readable verdict at all is `None`.
pub fn vote_rubrics(samples: &[Vec<RubricScore>]) -> Vec<RubricScore> {
    let mut order: Vec<&str> = Vec::new();
    for (id, _) in samples.iter().flatten() {
        if !order.contains(&id.as_str()) {
            order.push(id);
        }
    }
    order
        .into_iter()
        .map(|id| {
            let verdicts = samples.iter().flatten().filter(|(r, _)| r == id);
            let (mut yes, mut no) = (0, 0);
            for (_, score) in verdicts {
                match score {
                    Some(s) if *s == 1.0 => yes += 1,
                    Some(_) => no += 1,
                    None => {}
                }
            }
            let score = match (yes, no) {
                (0, 0) => None,
                (yes, no) if yes > no => Some(1.0),
                _ => Some(0.0),
            };
            (id.to_string(), score)
        })
        .collect()
}

/// The mean of the scores that are not `None`.
pub fn mean_of_scored(scores: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let values: Vec<f64> = scores.into_iter().flatten().collect();
    exact_mean(&values)
}

static FRM_VALID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#""is_the_agent_response_valid":\s*\[*[\n\s]*"*([^"^\]^\s]*)"*[\n\s]*\]*\s*[,\n\}]"#,
    )
    .expect("a valid pattern")
});
static FRM_INVALID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#""is_the_agent_response_invalid":\s*\[*[\n\s]*"*([^"^\]^\s]*)"*[\n\s]*\]*\s*[,\n\}]"#,
    )
    .expect("a valid pattern")
});

/// A `final_response_match_v2` answer: 1.0 valid, 0.0 invalid, `None` when
/// no label is found.
pub fn response_match_answer(text: &str) -> Option<f64> {
    let label = |m: regex::Captures<'_>| {
        m.get(1)
            .map_or("", |l| l.as_str())
            .trim()
            .trim_end_matches([',', '}'])
            .to_string()
    };
    if let Some(found) = FRM_VALID.captures(text) {
        return match label(found).as_str() {
            "invalid" | "almost" | "false" | "partially_valid" | "partially" => Some(0.0),
            "valid" | "true" => Some(1.0),
            _ => None,
        };
    }
    FRM_INVALID
        .captures(text)
        .map(|found| match label(found).as_str() {
            "true" | "invalid" => 0.0,
            _ => 1.0,
        })
}

/// The majority over samples of one invocation: more valid than invalid is
/// 1.0, a tie or fewer 0.0; `None` when no sample could be read.
pub fn vote_response_match(samples: &[Option<f64>]) -> Option<f64> {
    let yes = samples.iter().filter(|s| **s == Some(1.0)).count();
    let no = samples.iter().filter(|s| **s == Some(0.0)).count();
    match (yes, no) {
        (0, 0) => None,
        (yes, no) if yes > no => Some(1.0),
        _ => Some(0.0),
    }
}

/// The segmenter's sentences: every `<sentence>...</sentence>`.
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("<sentence>") {
        let after = &rest[start + "<sentence>".len()..];
        let Some(end) = after.find("</sentence>") else {
            break;
        };
        out.push(after[..end].to_string());
        rest = &after[end + "</sentence>".len()..];
    }
    out
}

/// The validator's blocks, `(sentence, label)`: five fields per block
/// (`sentence:`, `label:`, `rationale:`, `supporting_excerpt:`,
/// `contradicting_excerpt:`, any case), each after a newline; a block ends
/// where the next `sentence:` line starts.
pub fn validations(text: &str) -> Vec<(String, String)> {
    let text = text.trim();
    let lower = text.to_ascii_lowercase();
    let fields = [
        "\nlabel:",
        "\nrationale:",
        "\nsupporting_excerpt:",
        "\ncontradicting_excerpt:",
    ];
    let mut out = Vec::new();
    let mut cursor = 0;
    'blocks: while let Some(found) = lower[cursor..].find("sentence:") {
        let start = cursor + found + "sentence:".len();
        let mut bounds = vec![start];
        let mut at = start;
        for field in fields {
            let Some(next) = lower[at..].find(field) else {
                break 'blocks;
            };
            bounds.push(at + next);
            at = at + next + field.len();
            bounds.push(at);
        }
        let end = lower[at..]
            .find("\nsentence:")
            .map_or(text.len(), |i| at + i);
        let sentence = text[bounds[0]..bounds[1]].trim().to_string();
        let label = text[bounds[2]..bounds[3]].trim().to_string();
        out.push((sentence, label));
        cursor = if end == text.len() { end } else { end + 1 };
    }
    out
}

/// A validation label's score: supported and not applicable 1, unsupported,
/// contradictory and disputed 0, anything else not counted.
pub fn label_score(label: &str) -> Option<f64> {
    match label.trim().to_lowercase().as_str() {
        "supported" | "not_applicable" => Some(1.0),
        "unsupported" | "contradictory" | "disputed" => Some(0.0),
        _ => None,
    }
}

/// Python's `statistics.mean` of floats: the exact rational mean, rounded
/// once to the nearest double. `None` for no values.
pub fn exact_mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    // Every finite double is m * 2^e; over a common exponent the sum is an
    // integer. Scores are in [0, 1] with short mantissas, so it fits.
    let parts: Vec<(i128, i32)> = values.iter().map(|v| decompose(*v)).collect();
    let lowest = parts.iter().map(|(_, e)| *e).min().unwrap_or(0);
    let mut sum: i128 = 0;
    for (mantissa, exponent) in &parts {
        let shift = (exponent - lowest) as u32;
        let scaled = mantissa
            .checked_shl(shift)
            .filter(|s| s >> shift == *mantissa);
        match scaled.and_then(|s| sum.checked_add(s)) {
            Some(total) => sum = total,
            // Far beyond what scores hold: the plain mean.
            None => return Some(values.iter().sum::<f64>() / values.len() as f64),
        }
    }
    Some(round_ratio(sum, values.len() as i128, lowest))
}

/// `(mantissa, exponent)` with `value == mantissa * 2^exponent`.
fn decompose(value: f64) -> (i128, i32) {
    if value == 0.0 {
        return (0, 0);
    }
    let bits = value.to_bits();
    let sign = if bits >> 63 == 1 { -1 } else { 1 };
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = (bits & ((1 << 52) - 1)) as i128;
    let (mantissa, exponent) = if exponent == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), exponent - 1075)
    };
    (sign * mantissa, exponent)
}

/// The double nearest to `numerator / denominator * 2^exponent`, ties to
/// even, as Python rounds a `Fraction`.
fn round_ratio(numerator: i128, denominator: i128, exponent: i32) -> f64 {
    if numerator == 0 {
        return 0.0;
    }
    let negative = numerator < 0;
    let (n, d) = (numerator.unsigned_abs(), denominator as u128);
    // Scale so the quotient has 55 bits or more: 53 kept, then rounding.
    let mut shift = 0i32;
    let (mut q, mut r);
    loop {
        let scaled = if shift >= 0 { n << shift } else { n >> -shift };
        q = scaled / d;
        r = scaled % d;
        if q >> 55 != 0 || shift >= 70 || n.leading_zeros() as i32 <= shift + 1 {
            break;
        }
        shift += 1;
    }
    // Keep 53 bits of q; the rest and the remainder decide the rounding.
    let extra = (128 - q.leading_zeros() as i32 - 53).max(0);
    let kept = q >> extra;
    let dropped = q & ((1u128 << extra) - 1);
    let half = if extra > 0 { 1u128 << (extra - 1) } else { 0 };
    let sticky = r != 0;
    let round_up = extra > 0 && (dropped > half || (dropped == half && (sticky || kept & 1 == 1)));
    let mantissa = kept + u128::from(round_up);
    let value = mantissa as f64 * 2f64.powi(exponent - shift + extra);
    if negative { -value } else { value }
}

/// The smallest score at or above `threshold` a case can reach when its
/// score is a count of passing verdicts over `slots` (rubrics x runs x
/// invocations), each slot 0 or 1: what the threshold really asks. The
/// score is compared as ADK compares it, as the double nearest the count's
/// share.
pub fn effective_threshold(threshold: f64, slots: u32) -> f64 {
    let slots = slots.max(1);
    (0..=slots)
        .map(|k| f64::from(k) / f64::from(slots))
        .find(|score| *score >= threshold)
        .unwrap_or(1.0)
}

/// One invocation as the judge is shown it.
#[derive(Clone, Debug, Default)]
pub struct Turn {
    /// The invocation's messages, the user's first.
    pub messages: Vec<Message>,
}

impl Turn {
    fn user(&self) -> String {
        self.messages
            .iter()
            .filter(|m| m.role == "user")
            .map(Message::content_text)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The agent's texts, in order; the last is the final response.
    fn responses(&self) -> Vec<(usize, String)> {
        self.messages
            .iter()
            .enumerate()
            .filter(|(_, m)| m.role == "assistant" && m.tool_calls.is_none())
            .map(|(i, m)| (i, m.content_text()))
            .filter(|(_, t)| !t.is_empty())
            .collect()
    }

    fn final_response(&self, with_intermediate: bool) -> String {
        let responses = self.responses();
        if with_intermediate {
            responses
                .into_iter()
                .map(|(_, t)| t)
                .collect::<Vec<_>>()
                .join("\n")
        } else {
            responses.last().map(|(_, t)| t.clone()).unwrap_or_default()
        }
    }
}

/// What one session (one run, in ADK's words) scored.
#[derive(Clone, Debug, PartialEq)]
pub struct RunScore {
    /// Each invocation's score; `None` where it could not be judged.
    pub invocations: Vec<Option<f64>>,
    /// Each rubric's voted verdicts over the invocations, for the report.
    pub rubrics: Vec<RubricScore>,
}

const SYSTEM: &str =
    "You are a careful evaluator of an AI agent's work. Follow the answer format exactly.";

fn rubric_list(rubrics: &[Rubric]) -> String {
    rubrics
        .iter()
        .map(|r| format!("[id: {}] {}", r.id, r.text))
        .collect::<Vec<_>>()
        .join("\n")
}

const RUBRIC_FORMAT: &str = "For each property, in the order given, answer with exactly these lines and nothing else:\nID: <the property's id>\nProperty: <the property's text>\nRationale: <one line>\nVerdict: yes or no\n";

fn rubric_prompt(j: &AdkJudge, turn: &Turn) -> String {
    let trajectory = prompt::render_trajectory(&turn.messages);
    match j.metric {
        Metric::RubricBasedToolUseQuality => format!(
            "Judge how the agent used its tools while answering the user.\n\n<user>\n{}\n</user>\n<steps>\n{trajectory}\n</steps>\n\nProperties:\n{}\n\n{RUBRIC_FORMAT}",
            turn.user(),
            rubric_list(&j.rubrics)
        ),
        _ => format!(
            "Judge the agent's final response to the user.\n\n<user>\n{}\n</user>\n<steps>\n{trajectory}\n</steps>\n<final_response>\n{}\n</final_response>\n\nProperties:\n{}\n\n{RUBRIC_FORMAT}",
            turn.user(),
            turn.final_response(j.include_intermediate),
            rubric_list(&j.rubrics)
        ),
    }
}

/// The whole conversation, turn by turn, for a judgement of all of it.
fn multi_turn_prompt(j: &AdkJudge, turns: &[Turn]) -> String {
    let dialogue = turns
        .iter()
        .enumerate()
        .map(|(i, turn)| {
            format!(
                "<turn number=\"{}\">\n{}\n</turn>",
                i + 1,
                prompt::render_trajectory(&turn.messages)
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    format!(
        "Judge the agent across this whole multi-turn conversation: every turn, its replies and its tool calls together. A property holds when the agent's performance over all its turns meets it (a mistake corrected in a later turn counts as corrected), or when it does not apply; where it does not hold, name the turn that broke it in the rationale.\n\n<conversation>\n{dialogue}\n</conversation>\n\nProperties:\n{}\n\n{RUBRIC_FORMAT}",
        rubric_list(&j.rubrics)
    )
}

fn response_match_prompt(j: &AdkJudge, turn: &Turn, expected: &str) -> String {
    format!(
        "Decide whether the agent's response to the user is valid: it gives the information of the reference response, with no contradiction of it (wording may differ).\n\n<user>\n{}\n</user>\n<agent_response>\n{}\n</agent_response>\n<reference_response>\n{expected}\n</reference_response>\n\nAnswer with a JSON object and nothing else:\n{{\"reasoning\": \"<one line>\", \"is_the_agent_response_valid\": \"valid\" or \"invalid\"}}\n",
        turn.user(),
        turn.final_response(j.include_intermediate)
    )
}

fn segmenter_prompt(response: &str) -> String {
    format!(
        "Split this response into its sentences, each in <sentence>...</sentence> tags, in order, word for word, and nothing else.\n\n<response>\n{response}\n</response>\n"
    )
}

fn validator_prompt(context: &str, sentences: &[String]) -> String {
    let listed = sentences
        .iter()
        .map(|s| format!("<sentence>{s}</sentence>"))
        .collect::<Vec<_>>()
        .join("\n");
    format!(
        "For each sentence the agent wrote, decide whether the context supports it: what the user said and what the tools returned.\n\n<context>\n{context}\n</context>\n<sentences>\n{listed}\n</sentences>\n\nFor each sentence, in order, answer with exactly these five lines:\nsentence: <the sentence>\nlabel: supported, unsupported, contradictory, disputed or not_applicable (for greetings, questions and other sentences that claim nothing)\nrationale: <one line>\nsupporting_excerpt: <a quote from the context, or null>\ncontradicting_excerpt: <a quote from the context, or null>\n"
    )
}

fn text_request(content: String, temperature: Option<f64>) -> JudgeRequest {
    JudgeRequest {
        messages: vec![
            ChatMessage {
                role: "system",
                content: SYSTEM.into(),
            },
            ChatMessage {
                role: "user",
                content,
            },
        ],
        schema_name: "text",
        // The metrics read text in ADK's formats, not a JSON schema.
        schema: Value::Null,
        temperature,
        model: None,
    }
}

/// One answer's text; `None` when the call failed, which ADK counts as the
/// invocation not evaluated.
async fn ask(request: &JudgeRequest, judge: &impl Judge, usage: &mut JudgeUsage) -> Option<String> {
    match judge.ask(request).await {
        Ok(answer) => {
            usage.add(&answer);
            Some(answer.content)
        }
        Err(error) => {
            tracing::debug!("judge call failed, the invocation is not evaluated: {error}");
            None
        }
    }
}

/// Score one session's invocations with one of ADK's judged metrics.
pub async fn judge_run(
    j: &AdkJudge,
    turns: &[Turn],
    judge: &impl Judge,
    usage: &mut JudgeUsage,
) -> RunScore {
    let mut scores = Vec::new();
    let mut voted_all: Vec<RubricScore> = Vec::new();
    if j.metric == Metric::RubricBasedMultiTurnTrajectoryQuality {
        // ADK judges the whole dialogue once, on the last invocation, the
        // others not evaluated: the run's score is that one judgement.
        let request = text_request(multi_turn_prompt(j, turns), j.temperature);
        let score = rubric_samples(j, &request, judge, usage, &mut voted_all).await;
        let mut scores = vec![None; turns.len().saturating_sub(1)];
        scores.push(score);
        return RunScore {
            invocations: scores,
            rubrics: voted_all,
        };
    }
    for (index, turn) in turns.iter().enumerate() {
        let score = match j.metric {
            Metric::RubricBasedFinalResponseQuality | Metric::RubricBasedToolUseQuality => {
                let request = text_request(rubric_prompt(j, turn), j.temperature);
                rubric_samples(j, &request, judge, usage, &mut voted_all).await
            }
            Metric::RubricBasedMultiTurnTrajectoryQuality => unreachable!("judged whole above"),
            Metric::FinalResponseMatch => match j.expected.get(index) {
                None => None,
                Some(expected) => {
                    let request =
                        text_request(response_match_prompt(j, turn, expected), j.temperature);
                    let mut samples = Vec::new();
                    let mut failed = false;
                    for _ in 0..j.samples {
                        match ask(&request, judge, usage).await {
                            Some(text) if text.is_empty() => samples.push(None),
                            Some(text) => samples.push(response_match_answer(&text)),
                            None => failed = true,
                        }
                    }
                    if failed {
                        None
                    } else {
                        vote_response_match(&samples)
                    }
                }
            },
            Metric::Hallucinations => grounded(j, turn, judge, usage).await,
        };
        scores.push(score);
    }
    // Each rubric's verdicts over the invocations, for the report.
    let mut rubrics: Vec<RubricScore> = Vec::new();
    for rubric in &j.rubrics {
        let verdicts = voted_all
            .iter()
            .filter(|(id, _)| *id == rubric.id)
            .map(|(_, s)| *s);
        rubrics.push((rubric.id.clone(), mean_of_scored(verdicts)));
    }
    RunScore {
        invocations: scores,
        rubrics,
    }
}

/// A rubric request asked `numSamples` times, each rubric's verdict voted
/// over the samples (kept in `voted`), the score their mean; `None` when a
/// call failed, which ADK counts as not evaluated.
async fn rubric_samples(
    j: &AdkJudge,
    request: &JudgeRequest,
    judge: &impl Judge,
    usage: &mut JudgeUsage,
    voted: &mut Vec<RubricScore>,
) -> Option<f64> {
    let mut samples = Vec::new();
    for _ in 0..j.samples {
        samples.push(rubric_answer(
            &ask(request, judge, usage).await?,
            &j.rubrics,
        ));
    }
    let verdicts = vote_rubrics(&samples);
    let score = mean_of_scored(verdicts.iter().map(|(_, s)| *s));
    voted.extend(verdicts);
    score
}

/// hallucinations_v1 on one invocation: each response (the final one, or
/// every one) split into sentences, each sentence labelled against what
/// came before it; one call each, whatever `numSamples` says, as in ADK.
async fn grounded(
    j: &AdkJudge,
    turn: &Turn,
    judge: &impl Judge,
    usage: &mut JudgeUsage,
) -> Option<f64> {
    let responses = turn.responses();
    let steps: Vec<&(usize, String)> = if j.evaluate_intermediate {
        responses.iter().collect()
    } else {
        responses.last().into_iter().collect()
    };
    let mut step_scores = Vec::new();
    for (at, response) in steps {
        let context = prompt::render_trajectory(&turn.messages[..*at]);
        let segmented = ask(
            &text_request(segmenter_prompt(response), j.temperature),
            judge,
            usage,
        )
        .await;
        let found = segmented.filter(|t| !t.is_empty()).map(|t| sentences(&t));
        let score = match found {
            Some(found) if !found.is_empty() => {
                let validated = ask(
                    &text_request(validator_prompt(&context, &found), j.temperature),
                    judge,
                    usage,
                )
                .await;
                validated.filter(|t| !t.is_empty()).and_then(|t| {
                    mean_of_scored(validations(&t).iter().map(|(_, l)| label_score(l)))
                })
            }
            _ => None,
        };
        step_scores.push(score);
    }
    mean_of_scored(step_scores)
}

/// ADK's verdict for the case: the mean of every invocation's score that
/// is not `None`, over every run, at least the threshold.
pub fn verdict(j: &AdkJudge, runs: &[&RunScore]) -> Option<(f64, bool)> {
    let scores = runs.iter().flat_map(|r| r.invocations.iter().copied());
    mean_of_scored(scores).map(|score| (score, score >= j.threshold))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rubric(id: &str, text: &str) -> Rubric {
        Rubric {
            id: id.into(),
            text: text.into(),
        }
    }

    #[test]
    fn answers_read_as_adk_reads_them() {
        let rubrics = [
            rubric("temp", "The response states the temperature."),
            rubric("city", "It names the city."),
        ];
        let answer = "ID: temp\nProperty: **The response states the temperature.**\nRationale: ok\nVerdict: Yes, it does not\n\nProperty: it names the city.\nRationale: no\nVerdict: nope";
        assert_eq!(
            rubric_answer(answer, &rubrics),
            [
                ("temp".to_string(), Some(1.0)),
                ("city".to_string(), Some(0.0))
            ]
        );
        // A missing verdict voids the answer.
        assert!(rubric_answer("Property: It names the city.\nRationale: x\n", &rubrics).is_empty());
        assert_eq!(
            response_match_answer("{\"is_the_agent_response_valid\": \"valid\"}"),
            Some(1.0)
        );
        assert_eq!(
            response_match_answer("\"is_the_agent_response_valid\": \"valid\""),
            None,
            "no terminator"
        );
        assert_eq!(
            response_match_answer("{\"is_the_agent_response_invalid\": \"no\"}"),
            Some(1.0)
        );
        assert_eq!(label_score("Not_Applicable"), Some(1.0));
        assert_eq!(label_score("partially_supported"), None);
    }

    #[test]
    fn votes_and_means_are_adks() {
        let s = |v: Option<f64>| vec![("r".to_string(), v)];
        assert_eq!(
            vote_rubrics(&[s(Some(1.0)), s(Some(0.0))]),
            [("r".into(), Some(0.0))],
            "a tie fails"
        );
        assert_eq!(
            vote_rubrics(&[s(Some(1.0)), s(None), s(None)]),
            [("r".into(), Some(1.0))]
        );
        assert_eq!(vote_response_match(&[None, None]), None);
        // 12 of 15 verdicts, 3 rubrics over 5 runs, spread 2,2,2,3,3.
        let third = |k: f64| k / 3.0;
        let spread = [third(2.0), third(2.0), third(2.0), 1.0, 1.0];
        assert_eq!(exact_mean(&spread), Some(0.7999999999999999));
        assert_eq!(exact_mean(&[1.0, 1.0, 1.0, 1.0, 0.0]), Some(0.8));
        assert_eq!(exact_mean(&[0.1, 0.2]), Some(0.15000000000000002));
    }

    #[test]
    fn effective_thresholds_of_the_template() {
        assert_eq!(effective_threshold(0.7, 2), 1.0);
        assert_eq!(effective_threshold(0.7, 5), 0.8);
        assert_eq!(effective_threshold(0.7, 10), 0.7);
        assert_eq!(effective_threshold(0.5, 3), 2.0 / 3.0);
    }
}
