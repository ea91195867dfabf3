"""GitHub's webhook payloads, as far as the messages read them (GitHub's documented
"Webhook events and payloads"); unknown fields are ignored."""

from __future__ import annotations

from msgspec import Struct, field


class User(Struct, frozen=True):
    login: str
    html_url: str = ""


class Team(Struct, frozen=True):
    name: str
    html_url: str = ""
    description: str | None = None
    privacy: str = ""


class Repo(Struct, frozen=True):
    name: str
    full_name: str = ""
    html_url: str = ""
    private: bool = False


class Organization(Struct, frozen=True):
    login: str


class Ref(Struct, frozen=True):
    label: str = ""
    ref: str = ""


class PullRequest(Struct, frozen=True):
    number: int
    title: str
    html_url: str
    body: str | None = None
    merged: bool | None = False
    assignee: User | None = None
    head: Ref = field(default_factory=Ref)
    base: Ref = field(default_factory=Ref)
    active_lock_reason: str | None = None


class Issue(Struct, frozen=True):
    number: int
    title: str
    html_url: str
    body: str | None = None
    # Present when the issue is a pull request (comments on PRs come as issue_comment).
    pull_request: dict[str, object] | None = None


class Comment(Struct, frozen=True):
    html_url: str
    body: str = ""
    commit_id: str = ""


class Label(Struct, frozen=True):
    name: str


class Milestone(Struct, frozen=True):
    title: str
    html_url: str = ""


class Event(Struct, frozen=True):
    """The fields every event carries."""

    sender: User
    action: str = ""
    repository: Repo | None = None
    organization: Organization | None = None


class PullRequestEvent(Event, frozen=True):
    pull_request: PullRequest | None = None
    changes: dict[str, object] = field(default_factory=dict)
    requested_reviewer: User | None = None
    assignee: User | None = None
    requested_team: Team | None = None


class IssueEvent(Event, frozen=True):
    issue: Issue | None = None
    comment: Comment | None = None
    assignee: User | None = None
    label: Label | None = None
    milestone: Milestone | None = None


class ReviewBody(Struct, frozen=True):
    html_url: str
    body: str | None = None
    state: str = ""


class ReviewEvent(PullRequestEvent, frozen=True):
    review: ReviewBody | None = None
    comment: Comment | None = None


class PushCommitAuthor(Struct, frozen=True):
    name: str = ""
    username: str | None = None


class PushCommit(Struct, frozen=True):
    id: str
    message: str
    url: str | None = None
    author: PushCommitAuthor = field(default_factory=PushCommitAuthor)


class PushEvent(Event, frozen=True):
    ref: str = ""
    compare: str | None = None
    created: bool = False
    deleted: bool = False
    forced: bool = False
    commits: list[PushCommit] = field(default_factory=list)
