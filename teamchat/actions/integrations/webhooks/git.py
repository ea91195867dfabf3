"""Message shapes shared by the version-control integrations (GitHub, GitLab, Gitea...):
push summaries with commit lists, "opened/closed/merged" lines, tags and releases. The
wording is Zulip's, so a team sees the same messages it saw there. Pure."""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

COMMITS_LIMIT = 20
COMMITTERS_LIMIT = 3
EMPTY_SHA = "0" * 40


@dataclass(frozen=True)
class Commit:
    author: str  # the name the push summary credits
    sha: str
    url: str | None
    message: str


def topic_for_branch(repo: str, branch: str) -> str:
    return f"{repo} / {branch}"


def topic_for_item(repo: str, kind: str, number: int, title: str) -> str:
    """A pull request's or issue's topic: "repo / PR #12 Title"."""
    return f"{repo} / {kind} #{number} {title}"


def short_sha(sha: str) -> str:
    return sha[:11]


def quote(text: str) -> str:
    return f"\n~~~ quote\n{text}\n~~~"


def commit_list(commits: Sequence[Commit], is_truncated: bool = False) -> str:
    """One bullet per commit (first line, short sha linked), at most COMMITS_LIMIT."""
    rows = [
        f"* {c.message.partition(chr(10))[0]} ([{short_sha(c.sha)}]({c.url}))"
        for c in commits[:COMMITS_LIMIT]
    ]
    text = "\n".join(rows)
    if len(commits) > COMMITS_LIMIT:
        text += f"\n[and {len(commits) - COMMITS_LIMIT} more commit(s)]"
    elif is_truncated:
        text += "\n[and more commit(s)]"
    return text


def _committers(commits: Sequence[Commit]) -> list[tuple[str, int]]:
    """(author, count) by count then name; past three, the rest as "others"."""
    ranked = sorted(Counter(c.author for c in commits).items(), key=lambda i: (-i[1], i[0]))
    if len(ranked) > COMMITTERS_LIMIT:
        others = sum(count for _, count in ranked[COMMITTERS_LIMIT:])
        ranked = [*ranked[:COMMITTERS_LIMIT], ("others", others)]
    return ranked


def _committers_text(ranked: list[tuple[str, int]]) -> str:
    parts = [f"{name} ({count})" for name, count in ranked]
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def push_message(
    user: str,
    compare_url: str | None,
    branch: str,
    commits: Sequence[Commit],
    *,
    is_truncated: bool = False,
    deleted: bool = False,
    force_push: bool = False,
    repository: tuple[str, str] | None = None,
) -> str:
    """A push: the branch deleted or pushed without commits, else the commit summary."""
    if not commits and deleted:
        return f"{user} [deleted]({compare_url}) the branch {branch}."
    verb = "force pushed" if force_push else "pushed"
    if not commits:
        if compare_url:
            return f"{user} [{verb}]({compare_url}) the branch {branch}."
        return f"{user} {verb} the branch {branch}."
    count = f"{len(commits)} commit{'s' if len(commits) > 1 else ''}"
    pushed = f"[{verb}]({compare_url}) {count}" if compare_url else f"{verb} {count}"
    base = f"{user} {pushed} to branch {branch}"
    base += f" of [{repository[0]}]({repository[1]})." if repository else "."
    ranked = _committers(commits)
    listing = commit_list(commits, is_truncated)
    if len(ranked) == 1 and ranked[0][0] == user:
        return f"{base}\n\n{listing}".rstrip()
    return f"{base} Commits by {_committers_text(ranked)}.\n\n{listing}".rstrip()


def force_push_message(user: str, url: str, branch: str, head: str) -> str:
    return f"{user} [force pushed]({url}) to branch {branch}. Head is now {head}."


def create_branch_message(user: str, url: str | None, branch: str) -> str:
    if url is None:
        return f"{user} created {branch} branch."
    return f"{user} created [{branch}]({url}) branch."


def remove_branch_message(user: str, branch: str) -> str:
    return f"{user} deleted branch {branch}."


def names_text(names: Sequence[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


_ACTION_WORDS = {"approval": "added their approval for", "unapproval": "removed their approval for"}


def item_message(
    *,
    user: str,
    action: str,
    url: str,
    number: int | None = None,
    kind: str = "PR",
    title: str | None = None,
    target_branch: str | None = None,
    base_branch: str | None = None,
    message: str | None = None,
    assignee: str | None = None,
    assignees: Sequence[str] = (),
    assignee_updated: str | None = None,
    reviewer: str | None = None,
) -> str:
    """Zulip's line for pull requests, issues and their comments:
    "user action [PR #n title](url) from `a` to `b` (assigned to x):" and the quoted text."""
    moved = {"assigned": f" {assignee_updated} to", "unassigned": f" {assignee_updated} from"}
    text = (
        f"{user} {_ACTION_WORDS.get(action, action)}{moved.get(action, '')} "
        f"[{kind}{f' #{number}' if number is not None else ''}"
        f"{f' {title}' if title is not None else ''}]({url})"
    )
    if target_branch and base_branch:
        text += f" from `{target_branch}` to `{base_branch}`"
    if assignees:
        text += f" (assigned to {names_text(assignees)})"
    elif assignee:
        text += f" (assigned to {assignee})"
    elif reviewer:
        text += f" (assigned reviewers: {reviewer})"
    ends_with_title = not (assignees or assignee or (target_branch and base_branch))
    if not ends_with_title or not title or title[-1] not in string.punctuation:
        text += ":" if message else "."
    if message:
        text += "\n" + quote(message)
    return text.rstrip()


def label_message(
    user: str, user_url: str, added: bool, label: str, url: str, number: int, title: str | None
) -> str:
    item = f"Issue #{number} {title}" if title is not None else f"Issue #{number}"
    verb, preposition = ("added", "to") if added else ("removed", "from")
    return f"[{user}]({user_url}) {verb} the {label} label {preposition} [{item}]({url})."


def milestone_message(
    user: str,
    user_url: str,
    added: bool,
    milestone: tuple[str, str],
    url: str,
    number: int,
    title: str | None,
) -> str:
    item = f"issue #{number} {title}" if title is not None else f"issue #{number}"
    verb, preposition = ("added", "to") if added else ("removed", "from")
    return (
        f"[{user}]({user_url}) {verb} milestone [{milestone[0]}]({milestone[1]}) "
        f"{preposition} [{item}]({url})."
    )


def tag_message(user: str, tag: str, url: str | None = None, action: str = "pushed") -> str:
    text = f"{user} {action} tag {f'[{tag}]({url})' if url else tag}"
    return text if tag[-1:] in string.punctuation else f"{text}."


def commit_comment_message(
    user: str, action: str, commit_url: str, sha: str, message: str | None = None
) -> str:
    text = f"{user} {action} on [{short_sha(sha)}]({commit_url})"
    return f"{text}:{quote(message)}" if message else f"{text}."


def release_message(user: str, action: str, tag: str, name: str, url: str) -> str:
    return f"{user} {action} release [{name}]({url}) for tag {tag}."


def branch_notifiable(branch: str, branches: str | None) -> bool:
    """Zulip's `branches` option: a comma-separated list; absent means every branch."""
    return branches is None or branch in {name.strip() for name in branches.split(",")}
