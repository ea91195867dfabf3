"""Gitea (and Forgejo, which sends Gitea's headers) and Gogs, whose webhooks share a shape:
pushes, branch creation, pull requests, issues, comments and releases. Pure."""

from __future__ import annotations

from collections.abc import Callable

from msgspec import Struct, field

from teamchat.actions.integrations.webhooks import git
from teamchat.actions.integrations.webhooks.base import Integration, Notice, WebhookRequest


class User(Struct, frozen=True):
    login: str = ""
    username: str = ""


class Repo(Struct, frozen=True):
    name: str
    html_url: str = ""


class CommitAuthor(Struct, frozen=True):
    name: str = ""
    username: str = ""


class Commit(Struct, frozen=True):
    id: str
    message: str = ""
    url: str = ""
    author: CommitAuthor = field(default_factory=CommitAuthor)


class Branch(Struct, frozen=True):
    ref: str = ""


class PullRequest(Struct, frozen=True):
    id: int
    number: int
    title: str
    html_url: str = ""
    merged: bool = False
    merged_by: User | None = None
    user: User = field(default_factory=User)
    assignee: User | None = None
    head_branch: str = ""
    base_branch: str = ""
    head: Branch | None = None
    base: Branch | None = None


class Issue(Struct, frozen=True):
    number: int
    title: str
    body: str = ""
    assignee: User | None = None


class Comment(Struct, frozen=True):
    html_url: str = ""
    body: str = ""


class Release(Struct, frozen=True):
    tag_name: str
    name: str = ""
    author: User = field(default_factory=User)


class Payload(Struct, frozen=True):
    repository: Repo
    sender: User = field(default_factory=User)
    action: str = ""
    ref: str = ""
    compare_url: str = ""
    commits: list[Commit] = field(default_factory=list)
    pull_request: PullRequest | None = None
    issue: Issue | None = None
    comment: Comment | None = None
    release: Release | None = None


def _branch(ref: str) -> str:
    return ref.replace("refs/heads/", "")


def push(p: Payload) -> str:
    commits = [
        git.Commit(c.author.username or (c.author.name.split() or [""])[0], c.id, c.url, c.message)
        for c in p.commits
    ]
    return git.push_message(p.sender.username, p.compare_url, _branch(p.ref), commits)


def create(p: Payload) -> str:
    return git.create_branch_message(
        p.sender.username, f"{p.repository.html_url}/src/{p.ref}", p.ref
    )


def gogs_pull_request(p: Payload, pr: PullRequest, title: str | None) -> str:
    user, action = (pr.merged_by or User(), "merged") if pr.merged else (pr.user, p.action)
    edited = action == "edited"
    who = pr.assignee.login if p.action and pr.assignee else None
    return git.item_message(
        user=user.username, action=action, url=pr.html_url, number=pr.number, title=title,
        target_branch=None if edited else pr.head_branch,
        base_branch=None if edited else pr.base_branch, assignee_updated=who,
    )  # fmt: skip


def gitea_pull_request(p: Payload, pr: PullRequest, title: str | None) -> str:
    user, action = (pr.merged_by or User(), "merged") if pr.merged else (p.sender, p.action)
    edited = action == "edited"
    who = pr.assignee.login if pr.assignee else None
    return git.item_message(
        user=user.username, action=action, url=pr.html_url, number=pr.number, title=title,
        target_branch=None if edited or pr.head is None else pr.head.ref,
        base_branch=None if edited or pr.base is None else pr.base.ref,
        assignee=who, assignee_updated=who if action == "assigned" else None,
    )  # fmt: skip


def issue(p: Payload, item: Issue, title: str | None) -> str:
    who = item.assignee.login if item.assignee else None
    return git.item_message(
        user=p.sender.login, action=p.action, kind="issue", number=item.number, title=title,
        url=f"{p.repository.html_url}/issues/{item.number}", message=item.body,
        assignee=who, assignee_updated=who if p.action == "assigned" else None,
    )  # fmt: skip


def issue_comment(p: Payload, item: Issue, comment: Comment, title: str | None) -> str:
    verb = "[commented]" if p.action == "created" else f"{p.action} a [comment]"
    return git.item_message(
        user=p.sender.login, action=f"{verb}({comment.html_url}) on", kind="issue",
        url=f"{p.repository.html_url}/issues/{item.number}", number=item.number,
        message=comment.body, title=title,
    )  # fmt: skip


PullRequestBody = Callable[[Payload, PullRequest, str | None], str]


def _notice(req: WebhookRequest, p: Payload, event: str, pr_body: PullRequestBody) -> Notice:
    repo = p.repository.name
    titled = req.user_specified_topic
    if event == "create":
        return Notice(git.topic_for_branch(repo, p.ref), create(p), event)
    if event == "pull_request" and p.pull_request is not None:
        pr = p.pull_request
        topic = git.topic_for_item(repo, "PR", pr.id, pr.title)
        return Notice(topic, pr_body(p, pr, pr.title if titled else None), event)
    if event in ("issues", "issue_comment") and p.issue is not None:
        item = p.issue
        topic = git.topic_for_item(repo, "issue", item.number, item.title)
        if event == "issues":
            return Notice(topic, issue(p, item, item.title if titled else None), event)
        if p.comment is not None:
            body = issue_comment(p, item, p.comment, item.title if titled else None)
            return Notice(topic, body, event)
    if event == "release" and p.release is not None:
        rel = p.release
        body = git.release_message(
            rel.author.username, p.action, rel.tag_name, rel.name, p.repository.html_url
        )
        return Notice(f"{repo} / {rel.tag_name} {rel.name}", body, event)
    raise req.unsupported(event)


def _formatter(header: str, pr_body: PullRequestBody) -> Callable[[WebhookRequest], Notice | None]:
    def format_hook(req: WebhookRequest) -> Notice | None:
        p = req.parse(Payload)
        event = req.header(header)
        if event == "push":
            branch = _branch(p.ref)
            if not git.branch_notifiable(branch, req.params.get("branches")):
                return None
            return Notice(git.topic_for_branch(p.repository.name, branch), push(p), event)
        return _notice(req, p, event, pr_body)

    return format_hook


EVENTS = ("issue_comment", "issues", "create", "pull_request", "push", "release")
GITEA = Integration(
    name="gitea",
    display_name="Gitea",
    format=_formatter("X-Gitea-Event", gitea_pull_request),
    events=EVENTS,
)
GOGS = Integration(
    name="gogs",
    display_name="Gogs",
    format=_formatter("X-Gogs-Event", gogs_pull_request),
    events=EVENTS,
)
