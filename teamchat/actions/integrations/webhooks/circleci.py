"""CircleCI: completed jobs and workflows with the commit that triggered them (GitHub,
Bitbucket or GitLab projects), and the test ping. Pure."""

from __future__ import annotations

from msgspec import Struct, field

from teamchat.actions.integrations.webhooks import git
from teamchat.actions.integrations.webhooks.base import Integration, Notice, WebhookRequest
from teamchat.errors import ZulipError

STATUS_WORDS = {
    "success": "has succeeded",
    "failed": "has failed",
    "canceled": "was canceled",
    "unauthorized": "was unauthorized",
    "error": "had an error",
}


class Named(Struct, frozen=True):
    name: str | None = None


class VcsCommit(Struct, frozen=True):
    subject: str | None = None
    author: Named = field(default_factory=Named)


class Vcs(Struct, frozen=True):
    provider_name: str = ""
    target_repository_url: str = ""
    revision: str = ""
    branch: str | None = None
    commit: VcsCommit = field(default_factory=VcsCommit)


class GitLabTrigger(Struct, frozen=True):
    commit_title: str = ""
    checkout_sha: str = ""
    commit_author_name: str = ""
    web_url: str = ""
    branch: str = ""


class TriggerParameters(Struct, frozen=True):
    gitlab: GitLabTrigger | None = None


class Trigger(Struct, frozen=True):
    type: str = ""


class Pipeline(Struct, frozen=True):
    number: int = 0
    trigger: Trigger = field(default_factory=Trigger)
    vcs: Vcs | None = None
    trigger_parameters: TriggerParameters | None = None


class Run(Struct, frozen=True):
    name: str = ""
    status: str = ""
    url: str = ""


class Payload(Struct, frozen=True):
    type: str
    webhook: Named = field(default_factory=Named)
    project: Named = field(default_factory=Named)
    pipeline: Pipeline = field(default_factory=Pipeline)
    job: Run | None = None
    workflow: Run | None = None


def _vcs_details(vcs: Vcs) -> str:
    sha = git.short_sha(vcs.revision)
    path = "commit" if vcs.provider_name == "github" else "commits"
    link = f"{vcs.target_repository_url}/{path}/{vcs.revision}"
    if not vcs.commit.subject:  # a pipeline started by hand (or by a tag)
        if not vcs.branch:
            return f"\nTriggered on the latest tag on [{sha}]({link}).\n"
        return f"\nTriggered on `{vcs.branch}`'s HEAD on [{sha}]({link}).\n"
    return (
        f"\nTriggered on [`{sha}: {vcs.commit.subject}`]({link}) on branch `{vcs.branch}` "
        f"by {vcs.commit.author.name}.\n"
    )


def _commit_details(req: WebhookRequest, pipeline: Pipeline) -> str:
    if pipeline.trigger_parameters is not None and pipeline.trigger.type != "gitlab":
        raise ZulipError("Projects using this version control system provider aren't supported")
    if pipeline.vcs is not None:
        return _vcs_details(pipeline.vcs)
    lab = pipeline.trigger_parameters.gitlab if pipeline.trigger_parameters else None
    if lab is None:
        raise ZulipError("Projects using this version control system provider aren't supported")
    link = f"{lab.web_url}/-/commit/{lab.checkout_sha}"
    return (
        f"\nTriggered on [`{git.short_sha(lab.checkout_sha)}: {lab.commit_title}`]({link}) on "
        f"branch `{lab.branch}` by {lab.commit_author_name}.\n"
    )


def format_circleci(req: WebhookRequest) -> Notice:
    p = req.parse(Payload)
    if p.type == "ping":
        return Notice("Test event", f"Webhook '{p.webhook.name}' test event successful.", p.type)
    details = _commit_details(req, p.pipeline)
    number = p.pipeline.number
    if p.type == "job-completed" and p.job is not None:
        status = STATUS_WORDS.get(p.job.status)
        body = f"\nJob `{p.job.name}` within Pipeline #{number} {status}.\n{details}\n"
    elif p.type == "workflow-completed" and p.workflow is not None:
        run = p.workflow
        status = STATUS_WORDS.get(run.status)
        body = (
            f"\nWorkflow [`{run.name}`]({run.url}) within Pipeline #{number} {status}.\n{details}\n"
        )
    else:
        raise req.unsupported(p.type)
    return Notice(topic=p.project.name or "", body=body, event=p.type)


INTEGRATION = Integration(
    name="circleci",
    display_name="CircleCI",
    format=format_circleci,
    events=("ping", "job-completed", "workflow-completed"),
)
