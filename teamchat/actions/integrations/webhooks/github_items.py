"""GitHub's pull requests, reviews, issues, comments and discussions as Zulip words them."""

from __future__ import annotations

from msgspec import Struct

from teamchat.actions.integrations.webhooks import git
from teamchat.actions.integrations.webhooks.base import WebhookRequest
from teamchat.actions.integrations.webhooks.github_shapes import (
    Comment,
    Event,
    Issue,
    IssueEvent,
    PullRequest,
    PullRequestEvent,
    ReviewEvent,
)


def _pr(req: WebhookRequest) -> tuple[PullRequestEvent, PullRequest]:
    event = req.parse(PullRequestEvent)
    if event.pull_request is None:
        raise req.unsupported(f"pull_request:{event.action}")
    return event, event.pull_request


def _title(req: WebhookRequest, title: str) -> str | None:
    return title if req.user_specified_topic else None


def opened_or_updated_pr(req: WebhookRequest) -> str:
    event, pr = _pr(req)
    action = "updated" if event.action == "synchronize" else event.action
    description = pr.body if "body" in event.changes or action == "opened" else None
    branches = action in ("opened", "merged")
    return git.item_message(
        user=event.sender.login,
        action=action,
        url=pr.html_url,
        number=pr.number,
        target_branch=pr.head.label if branches else None,
        base_branch=pr.base.label if branches else None,
        message=description,
        assignee=pr.assignee.login if pr.assignee else None,
        title=_title(req, pr.title),
    )


def assigned_or_unassigned_pr(req: WebhookRequest) -> str:
    event, pr = _pr(req)
    who = event.assignee or pr.assignee
    return git.item_message(
        user=event.sender.login,
        action=event.action,
        url=pr.html_url,
        number=pr.number,
        title=_title(req, pr.title),
        assignee_updated=who.login if who else None,
    )


def closed_pr(req: WebhookRequest) -> str:
    event, pr = _pr(req)
    return git.item_message(
        user=event.sender.login,
        action="merged" if pr.merged else "closed without merge",
        url=pr.html_url,
        number=pr.number,
        title=_title(req, pr.title),
    )


def review_requested(req: WebhookRequest) -> str:
    event, pr = _pr(req)
    if event.requested_reviewer is not None:
        who = f"[{event.requested_reviewer.login}]({event.requested_reviewer.html_url})"
    elif event.requested_team is not None:
        who = f"[{event.requested_team.name}]({event.requested_team.html_url})"
    else:
        raise req.unsupported("pull_request:review_requested")
    item = f"PR #{pr.number} {pr.title}" if req.user_specified_topic else f"PR #{pr.number}"
    return f"**{event.sender.login}** requested {who} for a review on [{item}]({pr.html_url})."


def ready_for_review(req: WebhookRequest) -> str:
    event, pr = _pr(req)
    return (
        f"**{event.sender.login}** has marked [PR #{pr.number}]({pr.html_url}) as ready for review."
    )


def locked_or_unlocked(req: WebhookRequest) -> str:
    event, pr = _pr(req)
    if event.action == "unlocked":
        return f"{event.sender.login} has unlocked [PR #{pr.number}]({pr.html_url})."
    return (
        f"{event.sender.login} has locked [PR #{pr.number}]({pr.html_url}) as "
        f"{pr.active_lock_reason} and limited conversation to collaborators."
    )


def auto_merge(req: WebhookRequest) -> str:
    event, pr = _pr(req)
    verb = "disabled" if event.action == "auto_merge_disabled" else "enabled"
    return f"{event.sender.login} has {verb} auto merge for [PR #{pr.number}]({pr.html_url})."


def review(req: WebhookRequest) -> str:
    event = req.parse(ReviewEvent)
    if event.pull_request is None or event.review is None:
        raise req.unsupported(f"pull_request_review:{event.action}")
    pr = event.pull_request
    return git.item_message(
        user=event.sender.login,
        action="submitted",
        url=event.review.html_url,
        kind="PR review",
        title=_title(req, f"for #{pr.number} {pr.title}"),
        message=event.review.body,
    )


def review_comment(req: WebhookRequest) -> str:
    event = req.parse(ReviewEvent)
    if event.pull_request is None or event.comment is None:
        raise req.unsupported(f"pull_request_review_comment:{event.action}")
    pr = event.pull_request
    return git.item_message(
        user=event.sender.login,
        action=event.action,
        url=event.comment.html_url,
        message=event.comment.body if event.action == "created" else None,
        kind="PR review comment",
        title=_title(req, f"on #{pr.number} {pr.title}"),
    )


def _issue(req: WebhookRequest) -> tuple[IssueEvent, Issue]:
    event = req.parse(IssueEvent)
    if event.issue is None:
        raise req.unsupported(f"issues:{event.action}")
    return event, event.issue


def issue(req: WebhookRequest) -> str:
    event, item = _issue(req)
    return git.item_message(
        user=event.sender.login,
        action=event.action,
        url=item.html_url,
        number=item.number,
        kind="issue",
        message=None if event.action in ("assigned", "unassigned") else item.body,
        title=_title(req, item.title),
        assignee_updated=event.assignee.login if event.assignee else None,
    )


def issue_labeled(req: WebhookRequest) -> str:
    event, item = _issue(req)
    if event.label is None:
        raise req.unsupported(f"issues:{event.action}")
    return git.label_message(
        event.sender.login,
        event.sender.html_url,
        event.action == "labeled",
        event.label.name,
        item.html_url,
        item.number,
        _title(req, item.title),
    )


def issue_milestoned(req: WebhookRequest) -> str:
    event, item = _issue(req)
    if event.milestone is None:
        raise req.unsupported(f"issues:{event.action}")
    return git.milestone_message(
        event.sender.login,
        event.sender.html_url,
        event.action == "milestoned",
        (event.milestone.title, event.milestone.html_url),
        item.html_url,
        item.number,
        _title(req, item.title),
    )


def comment_action(action: str, comment: Comment) -> str:
    verb = "[commented]" if action == "created" else f"{action} a [comment]"
    return f"{verb}({comment.html_url}) on"


def issue_comment(req: WebhookRequest) -> str:
    event, item = _issue(req)
    if event.comment is None:
        raise req.unsupported(f"issue_comment:{event.action}")
    return git.item_message(
        user=event.sender.login,
        action=comment_action(event.action, event.comment),
        url=item.html_url,
        number=item.number,
        message=event.comment.body,
        title=_title(req, item.title),
        kind="PR" if item.pull_request is not None else "issue",
    )


class Category(Struct, frozen=True):
    name: str


class Discussion(Struct, frozen=True):
    number: int
    title: str
    html_url: str
    body: str | None = ""
    category: Category | None = None


class DiscussionEvent(Event, frozen=True):
    discussion: Discussion | None = None
    comment: Comment | None = None


def _discussion(req: WebhookRequest) -> tuple[DiscussionEvent, Discussion]:
    event = req.parse(DiscussionEvent)
    if event.discussion is None:
        raise req.unsupported(f"discussion:{event.action}")
    return event, event.discussion


def discussion(req: WebhookRequest) -> str:
    event, item = _discussion(req)
    category = item.category.name if item.category else ""
    return (
        f"{event.sender.login} created [discussion #{item.number}]({item.html_url}) in "
        f"{category}:\n\n~~~ quote\n### {item.title}\n{item.body or ''}\n~~~"
    )


def discussion_comment(req: WebhookRequest) -> str:
    event, item = _discussion(req)
    if event.comment is None:
        raise req.unsupported(f"discussion_comment:{event.action}")
    return git.item_message(
        user=event.sender.login,
        action=comment_action(event.action, event.comment),
        url=item.html_url,
        number=item.number,
        message=event.comment.body,
        title=_title(req, item.title),
        kind="discussion",
    )


def discussion_topic(req: WebhookRequest, repo: str) -> str:
    _, item = _discussion(req)
    return f"{repo} discussion #{item.number}: {item.title}"
