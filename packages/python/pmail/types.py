# Generated from openapi.yaml by `npm run generate:python`. Do not edit.
"""The pmail API's objects as TypedDicts (openapi.yaml › components.schemas), and its error
codes with their HTTP status (openapi.yaml › x-error-codes)."""

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union


ERROR_CODES: Dict[str, int] = {
    "unauthenticated": 401,
    "key_revoked": 401,
    "key_expired": 401,
    "key_not_found": 404,
    "key_scope_exceeded": 403,
    "tenant_exists": 409,
    "policy_version_conflict": 409,
    "address_taken": 409,
    "client_id_conflict": 409,
    "domain_unavailable": 422,
    "permission_denied": 403,
    "scope_denied": 403,
    "guardrail_locked": 403,
    "route_not_found": 404,
    "method_not_allowed": 405,
    "identity_not_found": 404,
    "message_not_found": 404,
    "rate_limited": 429,
    "idempotency_key_required": 400,
    "invalid_idempotency_key": 400,
    "payload_too_large": 413,
    "invalid_request": 400,
    "idempotency_conflict": 409,
    "request_in_progress": 409,
    "tenant_suspended": 403,
    "identity_paused": 409,
    "identity_owner_required": 409,
    "address_invalid": 400,
    "address_unsupported": 400,
    "too_many_recipients": 400,
    "test_mode_recipient": 403,
    "message_too_large": 413,
    "header_not_allowed": 400,
    "marketing_requirements_missing": 400,
    "auto_reply_not_allowed": 409,
    "domain_not_ready": 409,
    "transport_unavailable": 422,
    "daily_cap_reached": 429,
    "billing_limit": 402,
    "thread_busy": 409,
    "thread_not_found": 404,
    "all_recipients_suppressed": 422,
    "recipient_blocked": 422,
    "tenant_not_found": 404,
    "suppression_not_found": 404,
    "list_entry_not_found": 404,
    "list_entry_conflict": 409,
    "attachment_not_found": 404,
    "not_cancelable": 409,
    "not_pending_approval": 409,
    "message_not_held": 409,
    "invalid_label": 400,
    "invalid_query": 400,
    "too_many_labels": 409,
    "not_uncertain": 409,
    "not_retryable": 409,
    "resolve_required": 409,
    "webhook_not_found": 404,
    "webhook_limit_reached": 422,
    "webhook_disabled": 409,
    "not_attempted": 503,
    "unavailable": 503,
    "internal_error": 500,
    "domain_not_found": 404,
    "domain_exists": 409,
    "template_not_found": 404,
    "template_exists": 409,
    "template_limit_reached": 422,
    "invalid_template": 400,
    "invalid_payload": 400,
}
"""Every error code the API answers with, and its HTTP status."""


_IdentityReceivePolicyStrangerRateRequired = TypedDict(
    "_IdentityReceivePolicyStrangerRateRequired",
    {},
)


_IdentityReceivePolicyStrangerRateOptional = TypedDict(
    "_IdentityReceivePolicyStrangerRateOptional",
    {
        "per_sender": int,
        "total": int,
    },
    total=False,
)


class IdentityReceivePolicyStrangerRate(_IdentityReceivePolicyStrangerRateRequired, _IdentityReceivePolicyStrangerRateOptional):
    """Mail from senders neither known nor allowed shown per hour (default 10 per sender, 50 in all); past it, held with reason `rate`."""


_IdentityReceivePolicyRequired = TypedDict(
    "_IdentityReceivePolicyRequired",
    {},
)


_IdentityReceivePolicyOptional = TypedDict(
    "_IdentityReceivePolicyOptional",
    {
        "hold": Literal["none", "unauthenticated", "unknown"],
        "stranger_rate": "IdentityReceivePolicyStrangerRate",
    },
    total=False,
)


class IdentityReceivePolicy(_IdentityReceivePolicyRequired, _IdentityReceivePolicyOptional):
    """IdentityReceivePolicy"""


_IdentityOwnerRequired = TypedDict(
    "_IdentityOwnerRequired",
    {
        "name": str,
        "email": str,
    },
)


_IdentityOwnerOptional = TypedDict(
    "_IdentityOwnerOptional",
    {},
    total=False,
)


class IdentityOwner(_IdentityOwnerRequired, _IdentityOwnerOptional):
    """IdentityOwner"""


_IdentitySendPolicyRequired = TypedDict(
    "_IdentitySendPolicyRequired",
    {},
)


_IdentitySendPolicyOptional = TypedDict(
    "_IdentitySendPolicyOptional",
    {
        "daily_cap": int,
        "require_known_recipient": bool,
        "require_approval": Union[bool, Literal["first_contact"]],
    },
    total=False,
)


class IdentitySendPolicy(_IdentitySendPolicyRequired, _IdentitySendPolicyOptional):
    """IdentitySendPolicy"""


_IdentityRequired = TypedDict(
    "_IdentityRequired",
    {
        "receive_policy": "IdentityReceivePolicy",
        "metadata": Dict[str, str],
        "client_id": Optional[str],
        "created_at": Optional[str],
        "updated_at": Optional[str],
        "id": str,
        "tenant_id": str,
        "username": str,
        "display_name": str,
        "status": Literal["active", "paused", "deleting", "deleted"],
        "pause_reason": Optional[str],
        "primary_address": str,
        "addresses": List[str],
        "owner": Optional["IdentityOwner"],
        "send_policy": "IdentitySendPolicy",
    },
)


_IdentityOptional = TypedDict(
    "_IdentityOptional",
    {},
    total=False,
)


class Identity(_IdentityRequired, _IdentityOptional):
    """Identity"""


_IdentityUpdateRequestOwner0Required = TypedDict(
    "_IdentityUpdateRequestOwner0Required",
    {
        "name": str,
        "email": str,
    },
)


_IdentityUpdateRequestOwner0Optional = TypedDict(
    "_IdentityUpdateRequestOwner0Optional",
    {},
    total=False,
)


class IdentityUpdateRequestOwner0(_IdentityUpdateRequestOwner0Required, _IdentityUpdateRequestOwner0Optional):
    """IdentityUpdateRequestOwner0"""


_IdentityUpdateRequestSendPolicy0Required = TypedDict(
    "_IdentityUpdateRequestSendPolicy0Required",
    {},
)


_IdentityUpdateRequestSendPolicy0Optional = TypedDict(
    "_IdentityUpdateRequestSendPolicy0Optional",
    {
        "require_known_recipient": bool,
        "daily_cap": int,
        "require_approval": Union[bool, Literal["first_contact"]],
    },
    total=False,
)


class IdentityUpdateRequestSendPolicy0(_IdentityUpdateRequestSendPolicy0Required, _IdentityUpdateRequestSendPolicy0Optional):
    """IdentityUpdateRequestSendPolicy0"""


_IdentityUpdateRequestReceivePolicy0StrangerRateRequired = TypedDict(
    "_IdentityUpdateRequestReceivePolicy0StrangerRateRequired",
    {},
)


_IdentityUpdateRequestReceivePolicy0StrangerRateOptional = TypedDict(
    "_IdentityUpdateRequestReceivePolicy0StrangerRateOptional",
    {
        "per_sender": int,
        "total": int,
    },
    total=False,
)


class IdentityUpdateRequestReceivePolicy0StrangerRate(_IdentityUpdateRequestReceivePolicy0StrangerRateRequired, _IdentityUpdateRequestReceivePolicy0StrangerRateOptional):
    """Mail from senders neither known nor allowed shown per hour (default 10 per sender, 50 in all); past it, held with reason `rate`."""


_IdentityUpdateRequestReceivePolicy0Required = TypedDict(
    "_IdentityUpdateRequestReceivePolicy0Required",
    {},
)


_IdentityUpdateRequestReceivePolicy0Optional = TypedDict(
    "_IdentityUpdateRequestReceivePolicy0Optional",
    {
        "hold": Literal["none", "unauthenticated", "unknown"],
        "stranger_rate": "IdentityUpdateRequestReceivePolicy0StrangerRate",
    },
    total=False,
)


class IdentityUpdateRequestReceivePolicy0(_IdentityUpdateRequestReceivePolicy0Required, _IdentityUpdateRequestReceivePolicy0Optional):
    """IdentityUpdateRequestReceivePolicy0"""


_IdentityUpdateRequestRequired = TypedDict(
    "_IdentityUpdateRequestRequired",
    {},
)


_IdentityUpdateRequestOptional = TypedDict(
    "_IdentityUpdateRequestOptional",
    {
        "status": Literal["active", "paused"],
        "display_name": str,
        "owner": Optional["IdentityUpdateRequestOwner0"],
        "send_policy": Optional["IdentityUpdateRequestSendPolicy0"],
        "receive_policy": Optional["IdentityUpdateRequestReceivePolicy0"],
        "metadata": Optional[Dict[str, str]],
    },
    total=False,
)


class IdentityUpdateRequest(_IdentityUpdateRequestRequired, _IdentityUpdateRequestOptional):
    """At least one field. `null` clears `owner`, `send_policy`, `receive_policy` or `metadata`. Field changes are written first, then the status."""


_WebhookCreateRequestRequired = TypedDict(
    "_WebhookCreateRequestRequired",
    {
        "url": str,
    },
)


_WebhookCreateRequestOptional = TypedDict(
    "_WebhookCreateRequestOptional",
    {
        "event_types": List[str],
        "description": str,
    },
    total=False,
)


class WebhookCreateRequest(_WebhookCreateRequestRequired, _WebhookCreateRequestOptional):
    """A webhook endpoint to add. Unknown fields are refused with 400 `invalid_request`."""


_WebhookRequired = TypedDict(
    "_WebhookRequired",
    {
        "id": str,
        "url": str,
        "event_types": Optional[List[str]],
        "description": Optional[str],
        "status": Literal["active", "disabled"],
        "disabled_reason": Optional[Literal["gone", None]],
        "created_at": str,
        "updated_at": str,
    },
)


_WebhookOptional = TypedDict(
    "_WebhookOptional",
    {},
    total=False,
)


class Webhook(_WebhookRequired, _WebhookOptional):
    """Webhook"""


_WebhookCreatedRequired = TypedDict(
    "_WebhookCreatedRequired",
    {
        "id": str,
        "url": str,
        "event_types": Optional[List[str]],
        "description": Optional[str],
        "status": Literal["active", "disabled"],
        "disabled_reason": Optional[Literal["gone", None]],
        "created_at": str,
        "updated_at": str,
        "secret": str,
    },
)


_WebhookCreatedOptional = TypedDict(
    "_WebhookCreatedOptional",
    {},
    total=False,
)


class WebhookCreated(_WebhookCreatedRequired, _WebhookCreatedOptional):
    """WebhookCreated"""


_WebhookListRequired = TypedDict(
    "_WebhookListRequired",
    {
        "data": List["Webhook"],
        "next_cursor": None,
    },
)


_WebhookListOptional = TypedDict(
    "_WebhookListOptional",
    {},
    total=False,
)


class WebhookList(_WebhookListRequired, _WebhookListOptional):
    """WebhookList"""


_TemplatePreviewRequestRequired = TypedDict(
    "_TemplatePreviewRequestRequired",
    {},
)


_TemplatePreviewRequestOptional = TypedDict(
    "_TemplatePreviewRequestOptional",
    {
        "variables": Dict[str, Any],
    },
    total=False,
)


class TemplatePreviewRequest(_TemplatePreviewRequestRequired, _TemplatePreviewRequestOptional):
    """TemplatePreviewRequest"""


_TemplatePreviewRequired = TypedDict(
    "_TemplatePreviewRequired",
    {
        "name": str,
        "version": int,
        "variables": Dict[str, Any],
        "subject": str,
        "text": Optional[str],
        "html": Optional[str],
    },
)


_TemplatePreviewOptional = TypedDict(
    "_TemplatePreviewOptional",
    {},
    total=False,
)


class TemplatePreview(_TemplatePreviewRequired, _TemplatePreviewOptional):
    """TemplatePreview"""


_WebhookDeliveryListRequired = TypedDict(
    "_WebhookDeliveryListRequired",
    {
        "data": List["WebhookDeliveryAttempt"],
        "next_cursor": None,
    },
)


_WebhookDeliveryListOptional = TypedDict(
    "_WebhookDeliveryListOptional",
    {},
    total=False,
)


class WebhookDeliveryList(_WebhookDeliveryListRequired, _WebhookDeliveryListOptional):
    """WebhookDeliveryList"""


_WebhookDeliveryAttemptRequired = TypedDict(
    "_WebhookDeliveryAttemptRequired",
    {
        "event_id": str,
        "event_type": str,
        "attempt": int,
        "status_code": Optional[int],
        "error": Optional[str],
        "result": Literal["delivered", "retrying", "dead", "disabled"],
        "attempted_at": str,
        "duration_ms": int,
    },
)


_WebhookDeliveryAttemptOptional = TypedDict(
    "_WebhookDeliveryAttemptOptional",
    {},
    total=False,
)


class WebhookDeliveryAttempt(_WebhookDeliveryAttemptRequired, _WebhookDeliveryAttemptOptional):
    """WebhookDeliveryAttempt"""


_WebhookTestQueuedRequired = TypedDict(
    "_WebhookTestQueuedRequired",
    {
        "delivery_id": str,
        "webhook_id": str,
        "event_type": Literal["webhook.test"],
        "status": Literal["queued"],
    },
)


_WebhookTestQueuedOptional = TypedDict(
    "_WebhookTestQueuedOptional",
    {},
    total=False,
)


class WebhookTestQueued(_WebhookTestQueuedRequired, _WebhookTestQueuedOptional):
    """WebhookTestQueued"""


_EventListRequired = TypedDict(
    "_EventListRequired",
    {
        "data": List["Event"],
        "next_cursor": Optional[str],
    },
)


_EventListOptional = TypedDict(
    "_EventListOptional",
    {},
    total=False,
)


class EventList(_EventListRequired, _EventListOptional):
    """EventList"""


_EventRequired = TypedDict(
    "_EventRequired",
    {
        "id": str,
        "type": str,
        "created_at": str,
        "data": Dict[str, Any],
    },
)


_EventOptional = TypedDict(
    "_EventOptional",
    {},
    total=False,
)


class Event(_EventRequired, _EventOptional):
    """Event"""


_StreamTicketRequestRequired = TypedDict(
    "_StreamTicketRequestRequired",
    {},
)


_StreamTicketRequestOptional = TypedDict(
    "_StreamTicketRequestOptional",
    {
        "identity_id": str,
        "thread_id": str,
        "types": List[str],
        "after": str,
    },
    total=False,
)


class StreamTicketRequest(_StreamTicketRequestRequired, _StreamTicketRequestOptional):
    """What the stream the ticket opens delivers, and where it starts. Each field absent is "any"."""


_StreamTicketRequired = TypedDict(
    "_StreamTicketRequired",
    {
        "ticket": str,
        "expires_at": str,
        "url": Optional[str],
    },
)


_StreamTicketOptional = TypedDict(
    "_StreamTicketOptional",
    {},
    total=False,
)


class StreamTicket(_StreamTicketRequired, _StreamTicketOptional):
    """StreamTicket"""


StreamFrame = Union["StreamEventFrame", "StreamHeartbeatFrame", "StreamCloseFrame"]
"""A text frame of the event stream (docs/guides/stream.md › Frames): an event, a heartbeat,"""


_StreamEventFrameRequired = TypedDict(
    "_StreamEventFrameRequired",
    {
        "type": Literal["event"],
        "event": "Event",
    },
)


_StreamEventFrameOptional = TypedDict(
    "_StreamEventFrameOptional",
    {
        "data_omitted": bool,
    },
    total=False,
)


class StreamEventFrame(_StreamEventFrameRequired, _StreamEventFrameOptional):
    """StreamEventFrame"""


_StreamHeartbeatFrameRequired = TypedDict(
    "_StreamHeartbeatFrameRequired",
    {
        "type": Literal["heartbeat"],
        "at": str,
    },
)


_StreamHeartbeatFrameOptional = TypedDict(
    "_StreamHeartbeatFrameOptional",
    {},
    total=False,
)


class StreamHeartbeatFrame(_StreamHeartbeatFrameRequired, _StreamHeartbeatFrameOptional):
    """StreamHeartbeatFrame"""


_StreamCloseFrameRequired = TypedDict(
    "_StreamCloseFrameRequired",
    {
        "type": Literal["close"],
        "code": Literal[1001, 4001, 4002, 4008, 4010, 4029],
        "reason": Literal["going_away", "key_revoked", "key_expired", "slow_consumer", "after_too_old", "connection_limit"],
        "message": str,
        "after": Optional[str],
    },
)


_StreamCloseFrameOptional = TypedDict(
    "_StreamCloseFrameOptional",
    {},
    total=False,
)


class StreamCloseFrame(_StreamCloseFrameRequired, _StreamCloseFrameOptional):
    """StreamCloseFrame"""


_SendMessageRequestRequired = TypedDict(
    "_SendMessageRequestRequired",
    {},
)


_SendMessageRequestOptional = TypedDict(
    "_SendMessageRequestOptional",
    {
        "to": List["Recipient"],
        "cc": List["Recipient"],
        "bcc": List["Recipient"],
        "subject": str,
        "text": str,
        "html": str,
        "attachments": List["Attachment"],
        "kind": "MessageKind",
        "unsubscribe": "Unsubscribe",
        "consent": "Consent",
        "thread_id": str,
        "from_address": str,
        "labels": "Labels",
        "headers": "CustomHeaders",
        "metadata": "Metadata",
        "send_at": "SendAt",
        "unless_reply": "UnlessReply",
        "template": "TemplateName",
        "variables": "TemplateVariables",
    },
    total=False,
)


class SendMessageRequest(_SendMessageRequestRequired, _SendMessageRequestOptional):
    """A new message. At least one recipient in `to`, `cc` or `bcc` (an address repeated across"""


_ReplyMessageRequestRequired = TypedDict(
    "_ReplyMessageRequestRequired",
    {},
)


_ReplyMessageRequestOptional = TypedDict(
    "_ReplyMessageRequestOptional",
    {
        "text": str,
        "html": str,
        "attachments": List["Attachment"],
        "kind": "MessageKind",
        "labels": "Labels",
        "headers": "CustomHeaders",
        "metadata": "Metadata",
        "send_at": "SendAt",
        "unless_reply": "UnlessReply",
        "template": "TemplateName",
        "variables": "TemplateVariables",
    },
    total=False,
)


class ReplyMessageRequest(_ReplyMessageRequestRequired, _ReplyMessageRequestOptional):
    """The content of a reply or reply-all: recipients, subject, threading and From come from"""


_ForwardMessageRequestRequired = TypedDict(
    "_ForwardMessageRequestRequired",
    {},
)


_ForwardMessageRequestOptional = TypedDict(
    "_ForwardMessageRequestOptional",
    {
        "to": List["Recipient"],
        "cc": List["Recipient"],
        "bcc": List["Recipient"],
        "text": str,
        "html": str,
        "attachments": List["Attachment"],
        "kind": "MessageKind",
        "labels": "Labels",
        "headers": "CustomHeaders",
        "metadata": "Metadata",
        "include_attachments": bool,
        "send_at": "SendAt",
        "unless_reply": "UnlessReply",
        "template": "TemplateName",
        "variables": "TemplateVariables",
    },
    total=False,
)


class ForwardMessageRequest(_ForwardMessageRequestRequired, _ForwardMessageRequestOptional):
    """A forward: the reply fields plus the recipients and whether to carry the original's"""


UnlessReply = bool
"""A follow-up that waits for no answer: with `send_at`, on a reply, a reply-all, a forward or"""


TemplateName = str
"""A send by template: the name of a template of the identity's tenant (its current"""


_TemplateVariablesRequired = TypedDict(
    "_TemplateVariablesRequired",
    {},
)


_TemplateVariablesOptional = TypedDict(
    "_TemplateVariablesOptional",
    {},
    total=False,
)


class TemplateVariables(_TemplateVariablesRequired, _TemplateVariablesOptional):
    """The variables of a send by template, checked against its `variables_schema` before"""


SendAt = str
"""Schedule the send: an RFC 3339 time with an offset, in the future and at most 30 days"""


MessageKind = Literal["transactional", "marketing", "auto_reply"]
"""- `transactional` (the default): mail the recipient needs, such as a receipt or an"""


_UnsubscribeRequired = TypedDict(
    "_UnsubscribeRequired",
    {
        "url": str,
    },
)


_UnsubscribeOptional = TypedDict(
    "_UnsubscribeOptional",
    {
        "mailto": str,
    },
    total=False,
)


class Unsubscribe(_UnsubscribeRequired, _UnsubscribeOptional):
    """Where a recipient unsubscribes; required with `kind: marketing`."""


_ConsentRequired = TypedDict(
    "_ConsentRequired",
    {
        "basis": str,
    },
)


_ConsentOptional = TypedDict(
    "_ConsentOptional",
    {
        "recorded_at": str,
    },
    total=False,
)


class Consent(_ConsentRequired, _ConsentOptional):
    """The consent a marketing send relies on; required with `kind: marketing`."""


Labels = List[str]
"""Your own tags, returned on the message. Kept as sent; a later change of labels"""


_LabelChangeRequired = TypedDict(
    "_LabelChangeRequired",
    {},
)


_LabelChangeOptional = TypedDict(
    "_LabelChangeOptional",
    {
        "add": List[str],
        "remove": List[str],
    },
    total=False,
)


class LabelChange(_LabelChangeRequired, _LabelChangeOptional):
    """Labels to add and to remove, at least one in all."""


_MessageLabelsRequired = TypedDict(
    "_MessageLabelsRequired",
    {
        "message_id": str,
        "labels": List[str],
    },
)


_MessageLabelsOptional = TypedDict(
    "_MessageLabelsOptional",
    {},
    total=False,
)


class MessageLabels(_MessageLabelsRequired, _MessageLabelsOptional):
    """MessageLabels"""


_ThreadLabelsRequired = TypedDict(
    "_ThreadLabelsRequired",
    {
        "thread_id": str,
        "labels": List[str],
    },
)


_ThreadLabelsOptional = TypedDict(
    "_ThreadLabelsOptional",
    {},
    total=False,
)


class ThreadLabels(_ThreadLabelsRequired, _ThreadLabelsOptional):
    """ThreadLabels"""


_MetadataRequired = TypedDict(
    "_MetadataRequired",
    {},
)


_MetadataOptional = TypedDict(
    "_MetadataOptional",
    {},
    total=False,
)


class Metadata(_MetadataRequired, _MetadataOptional):
    """Your own string pairs, returned on the message; at most 20 keys."""


_CustomHeadersRequired = TypedDict(
    "_CustomHeadersRequired",
    {},
)


_CustomHeadersOptional = TypedDict(
    "_CustomHeadersOptional",
    {},
    total=False,
)


class CustomHeaders(_CustomHeadersRequired, _CustomHeadersOptional):
    """Extra message headers, name to value. Allowed names: `X-` followed by letters, digits,"""


_DryRunResultRecipientsItemRequired = TypedDict(
    "_DryRunResultRecipientsItemRequired",
    {
        "address": str,
        "field": Literal["to", "cc", "bcc"],
        "status": Literal["queued", "suppressed"],
    },
)


_DryRunResultRecipientsItemOptional = TypedDict(
    "_DryRunResultRecipientsItemOptional",
    {
        "reason": Literal["manual", "unsubscribe", "hard_bounce", "complaint", "provider", "not_on_allowlist", "unknown_recipient"],
    },
    total=False,
)


class DryRunResultRecipientsItem(_DryRunResultRecipientsItemRequired, _DryRunResultRecipientsItemOptional):
    """DryRunResultRecipientsItem"""


_DryRunResultRequired = TypedDict(
    "_DryRunResultRequired",
    {
        "would_send": Literal[True],
        "recipients": List["DryRunResultRecipientsItem"],
    },
)


_DryRunResultOptional = TypedDict(
    "_DryRunResultOptional",
    {},
    total=False,
)


class DryRunResult(_DryRunResultRequired, _DryRunResultOptional):
    """The answer to a dry run that found no error: the message would be accepted. The"""


_Recipient1Required = TypedDict(
    "_Recipient1Required",
    {
        "address": str,
    },
)


_Recipient1Optional = TypedDict(
    "_Recipient1Optional",
    {
        "name": str,
    },
    total=False,
)


class Recipient1(_Recipient1Required, _Recipient1Optional):
    """Recipient1"""


Recipient = Union[str, "Recipient1"]
"""A bare address, or an address with a display name."""


_AttachmentRequired = TypedDict(
    "_AttachmentRequired",
    {
        "filename": str,
        "content_type": str,
        "content_base64": str,
    },
)


_AttachmentOptional = TypedDict(
    "_AttachmentOptional",
    {
        "disposition": Literal["attachment", "inline"],
        "content_id": str,
    },
    total=False,
)


class Attachment(_AttachmentRequired, _AttachmentOptional):
    """An inline attachment needs `content_id`."""


_SendBatchRequestRequired = TypedDict(
    "_SendBatchRequestRequired",
    {
        "messages": List["SendBatchMessage"],
    },
)


_SendBatchRequestOptional = TypedDict(
    "_SendBatchRequestOptional",
    {},
    total=False,
)


class SendBatchRequest(_SendBatchRequestRequired, _SendBatchRequestOptional):
    """SendBatchRequest"""


_SendBatchMessageRequired = TypedDict(
    "_SendBatchMessageRequired",
    {
        "idempotency_key": str,
    },
)


_SendBatchMessageOptional = TypedDict(
    "_SendBatchMessageOptional",
    {},
    total=False,
)


class SendBatchMessage(_SendBatchMessageRequired, _SendBatchMessageOptional):
    """A message of a batch: the fields of `SendMessageRequest` (checked by `sendMessage`, per"""


_SendBatchResponseRequired = TypedDict(
    "_SendBatchResponseRequired",
    {
        "data": List["SendBatchResult"],
    },
)


_SendBatchResponseOptional = TypedDict(
    "_SendBatchResponseOptional",
    {},
    total=False,
)


class SendBatchResponse(_SendBatchResponseRequired, _SendBatchResponseOptional):
    """SendBatchResponse"""


_ErrorBodyRequired = TypedDict(
    "_ErrorBodyRequired",
    {
        "code": str,
        "message": str,
        "retryable": bool,
        "fix": str,
        "request_id": str,
        "details": Dict[str, Any],
    },
)


_ErrorBodyOptional = TypedDict(
    "_ErrorBodyOptional",
    {},
    total=False,
)


class ErrorBody(_ErrorBodyRequired, _ErrorBodyOptional):
    """ErrorBody"""


_SendBatchResultRequired = TypedDict(
    "_SendBatchResultRequired",
    {
        "status": int,
    },
)


_SendBatchResultOptional = TypedDict(
    "_SendBatchResultOptional",
    {
        "message": "SendMessageResponse",
        "error": "ErrorBody",
        "retry_after": int,
    },
    total=False,
)


class SendBatchResult(_SendBatchResultRequired, _SendBatchResultOptional):
    """SendBatchResult"""


_SendMessageResponseTemplate1Required = TypedDict(
    "_SendMessageResponseTemplate1Required",
    {
        "name": str,
        "version": int,
    },
)


_SendMessageResponseTemplate1Optional = TypedDict(
    "_SendMessageResponseTemplate1Optional",
    {},
    total=False,
)


class SendMessageResponseTemplate1(_SendMessageResponseTemplate1Required, _SendMessageResponseTemplate1Optional):
    """SendMessageResponseTemplate1"""


_SendMessageResponseRequired = TypedDict(
    "_SendMessageResponseRequired",
    {
        "id": str,
        "thread_id": str,
        "identity_id": str,
        "direction": Literal["outbound", "inbound"],
        "status": Literal["pending_approval", "queued", "submitted", "delivered", "deferred", "bounced", "complained", "rejected", "failed", "uncertain", "suppressed", "canceled", "undispatched", "received"],
        "status_reason": Optional[str],
        "from": "Mailbox",
        "to": List["Mailbox"],
        "cc": List["Mailbox"],
        "bcc": List["Mailbox"],
        "reply_to": List["Mailbox"],
        "subject": str,
        "text": Optional[str],
        "html": Optional[str],
        "extracted_text": Optional[str],
        "snippet": Optional[str],
        "attachments": List["MessageAttachment"],
        "body_truncated": bool,
        "body_withheld": Optional[Literal["payload_redacted", None]],
        "body_omitted": bool,
        "sent_at": Optional[str],
        "received_at": str,
        "kind": Literal["transactional", "marketing", "auto_reply"],
        "consent_kind": Optional[Literal["transactional", "elective", None]],
        "labels": List[str],
        "flags": List[str],
        "metadata": Dict[str, str],
        "rfc_message_id": str,
        "in_reply_to": Optional[str],
        "send_at": Optional[str],
        "unless_reply": Optional[bool],
        "provider": Optional[Literal["simulator", "loopback", "ses", "cloudflare", "smtp", None]],
        "provider_message_id": Optional[str],
        "template": Optional["SendMessageResponseTemplate1"],
        "payload_redacted_at": Optional[str],
        "held": "Held",
        "inbound": Optional["InboundFields"],
        "deduplicated": bool,
    },
)


_SendMessageResponseOptional = TypedDict(
    "_SendMessageResponseOptional",
    {
        "deliveries": List["Delivery"],
    },
    total=False,
)


class SendMessageResponse(_SendMessageResponseRequired, _SendMessageResponseOptional):
    """The accepted message, and whether this answer is a replay."""


_MessageTemplate1Required = TypedDict(
    "_MessageTemplate1Required",
    {
        "name": str,
        "version": int,
    },
)


_MessageTemplate1Optional = TypedDict(
    "_MessageTemplate1Optional",
    {},
    total=False,
)


class MessageTemplate1(_MessageTemplate1Required, _MessageTemplate1Optional):
    """MessageTemplate1"""


_MessageRequired = TypedDict(
    "_MessageRequired",
    {
        "id": str,
        "thread_id": str,
        "identity_id": str,
        "direction": Literal["outbound", "inbound"],
        "status": Literal["pending_approval", "queued", "submitted", "delivered", "deferred", "bounced", "complained", "rejected", "failed", "uncertain", "suppressed", "canceled", "undispatched", "received"],
        "status_reason": Optional[str],
        "from": "Mailbox",
        "to": List["Mailbox"],
        "cc": List["Mailbox"],
        "bcc": List["Mailbox"],
        "reply_to": List["Mailbox"],
        "subject": str,
        "text": Optional[str],
        "html": Optional[str],
        "extracted_text": Optional[str],
        "snippet": Optional[str],
        "attachments": List["MessageAttachment"],
        "body_truncated": bool,
        "body_withheld": Optional[Literal["payload_redacted", None]],
        "body_omitted": bool,
        "sent_at": Optional[str],
        "received_at": str,
        "kind": Literal["transactional", "marketing", "auto_reply"],
        "consent_kind": Optional[Literal["transactional", "elective", None]],
        "labels": List[str],
        "flags": List[str],
        "metadata": Dict[str, str],
        "rfc_message_id": str,
        "in_reply_to": Optional[str],
        "send_at": Optional[str],
        "unless_reply": Optional[bool],
        "provider": Optional[Literal["simulator", "loopback", "ses", "cloudflare", "smtp", None]],
        "provider_message_id": Optional[str],
        "template": Optional["MessageTemplate1"],
        "payload_redacted_at": Optional[str],
        "held": "Held",
        "inbound": Optional["InboundFields"],
    },
)


_MessageOptional = TypedDict(
    "_MessageOptional",
    {
        "deliveries": List["Delivery"],
    },
    total=False,
)


class Message(_MessageRequired, _MessageOptional):
    """Message"""


_DeliveryRequired = TypedDict(
    "_DeliveryRequired",
    {
        "address": str,
        "typed_address": Optional[str],
        "field": Literal["to", "cc", "bcc"],
        "status": Literal["queued", "submitted", "delivered", "deferred", "bounced", "complained", "rejected", "failed", "uncertain", "suppressed"],
        "smtp_code": Optional[str],
        "enhanced_code": Optional[str],
        "smtp_response": Optional[str],
        "bounce_type": Optional[Literal["hard", "soft", None]],
        "updated_at": str,
    },
)


_DeliveryOptional = TypedDict(
    "_DeliveryOptional",
    {},
    total=False,
)


class Delivery(_DeliveryRequired, _DeliveryOptional):
    """Delivery"""


_HeldRequired = TypedDict(
    "_HeldRequired",
    {
        "reason": Literal["blocked", "unauthenticated", "unknown", "rate"],
        "held_at": Optional[str],
    },
)


_HeldOptional = TypedDict(
    "_HeldOptional",
    {},
    total=False,
)


class Held(_HeldRequired, _HeldOptional):
    """Held back from the agent (docs/guides/receiving.md › Held mail): only a key holding"""


_TrustRequired = TypedDict(
    "_TrustRequired",
    {
        "authenticated": bool,
        "spf": str,
        "dkim": str,
        "dkim_aligned": bool,
        "dmarc": str,
        "arc": Optional[str],
        "verified_by": Literal["mx", "ses"],
        "known_sender": bool,
        "listed": Optional[Literal["allow", "block", None]],
        "risk": List[str],
    },
)


_TrustOptional = TypedDict(
    "_TrustOptional",
    {},
    total=False,
)


class Trust(_TrustRequired, _TrustOptional):
    """Who sent it (docs/guides/receiving.md › Who sent it): `authenticated` when DMARC passed or a"""


_MailboxRequired = TypedDict(
    "_MailboxRequired",
    {
        "address": str,
        "name": Optional[str],
    },
)


_MailboxOptional = TypedDict(
    "_MailboxOptional",
    {},
    total=False,
)


class Mailbox(_MailboxRequired, _MailboxOptional):
    """Mailbox"""


_MessageAttachmentRequired = TypedDict(
    "_MessageAttachmentRequired",
    {
        "id": str,
        "filename": Optional[str],
        "content_type": str,
        "size": int,
        "content_id": Optional[str],
        "risky": bool,
        "risk": Optional[str],
    },
)


_MessageAttachmentOptional = TypedDict(
    "_MessageAttachmentOptional",
    {},
    total=False,
)


class MessageAttachment(_MessageAttachmentRequired, _MessageAttachmentOptional):
    """MessageAttachment"""


_InboundFieldsCanonicalRequired = TypedDict(
    "_InboundFieldsCanonicalRequired",
    {
        "from": str,
        "to": List[str],
        "cc": List[str],
        "reply_to": List[str],
    },
)


_InboundFieldsCanonicalOptional = TypedDict(
    "_InboundFieldsCanonicalOptional",
    {},
    total=False,
)


class InboundFieldsCanonical(_InboundFieldsCanonicalRequired, _InboundFieldsCanonicalOptional):
    """InboundFieldsCanonical"""


_InboundFieldsHeadersItemRequired = TypedDict(
    "_InboundFieldsHeadersItemRequired",
    {
        "name": str,
        "value": str,
    },
)


_InboundFieldsHeadersItemOptional = TypedDict(
    "_InboundFieldsHeadersItemOptional",
    {},
    total=False,
)


class InboundFieldsHeadersItem(_InboundFieldsHeadersItemRequired, _InboundFieldsHeadersItemOptional):
    """InboundFieldsHeadersItem"""


_InboundFieldsVerdictsRequired = TypedDict(
    "_InboundFieldsVerdictsRequired",
    {
        "spf": Optional[str],
        "dkim": Optional[str],
        "dmarc": Optional[str],
        "spam": Optional[str],
        "virus": Optional[str],
    },
)


_InboundFieldsVerdictsOptional = TypedDict(
    "_InboundFieldsVerdictsOptional",
    {},
    total=False,
)


class InboundFieldsVerdicts(_InboundFieldsVerdictsRequired, _InboundFieldsVerdictsOptional):
    """SES's verdicts (`PASS`, `FAIL`, `GRAY`, `PROCESSING_FAILED`, `DISABLED`); null when not given."""


_InboundFieldsPossibleDuplicateRequired = TypedDict(
    "_InboundFieldsPossibleDuplicateRequired",
    {
        "of": str,
        "reason": Literal["other_sender", "authentication_differs"],
    },
)


_InboundFieldsPossibleDuplicateOptional = TypedDict(
    "_InboundFieldsPossibleDuplicateOptional",
    {},
    total=False,
)


class InboundFieldsPossibleDuplicate(_InboundFieldsPossibleDuplicateRequired, _InboundFieldsPossibleDuplicateOptional):
    """An earlier message of the identity has this Message-ID and this copy was kept beside it"""


_InboundFieldsRequired = TypedDict(
    "_InboundFieldsRequired",
    {
        "envelope_from": Optional[str],
        "envelope_recipient": Optional[str],
        "routed_to": Optional[str],
        "canonical": "InboundFieldsCanonical",
        "parse": Optional[Literal["parsed", "oversize", "unparsed", "quarantined", None]],
        "cap": Optional[str],
        "threaded_by": Optional[str],
        "headers": List["InboundFieldsHeadersItem"],
        "verdicts": "InboundFieldsVerdicts",
        "sender_auth": Optional[Literal["authenticated", "unverified", "failed", None]],
        "trust": "Trust",
        "possible_duplicate": Optional["InboundFieldsPossibleDuplicate"],
        "auto": Optional[str],
        "dsn_unmatched": bool,
        "ses_message_id": Optional[str],
    },
)


_InboundFieldsOptional = TypedDict(
    "_InboundFieldsOptional",
    {},
    total=False,
)


class InboundFields(_InboundFieldsRequired, _InboundFieldsOptional):
    """InboundFields"""


_ThreadSummaryRequired = TypedDict(
    "_ThreadSummaryRequired",
    {
        "id": str,
        "subject": str,
        "participants": List[str],
        "message_count": int,
        "last_message_at": str,
        "snippet": str,
        "labels": List[str],
    },
)


_ThreadSummaryOptional = TypedDict(
    "_ThreadSummaryOptional",
    {},
    total=False,
)


class ThreadSummary(_ThreadSummaryRequired, _ThreadSummaryOptional):
    """ThreadSummary"""


_ThreadListItemRequired = TypedDict(
    "_ThreadListItemRequired",
    {
        "id": str,
        "subject": str,
        "participants": List[str],
        "message_count": int,
        "last_message_at": str,
        "snippet": str,
        "labels": List[str],
    },
)


_ThreadListItemOptional = TypedDict(
    "_ThreadListItemOptional",
    {
        "highlight": "Highlight",
    },
    total=False,
)


class ThreadListItem(_ThreadListItemRequired, _ThreadListItemOptional):
    """A ThreadSummary of a list; in search results (`q`) with the `highlight` of its newest matching message."""


_ThreadListRequired = TypedDict(
    "_ThreadListRequired",
    {
        "data": List["ThreadListItem"],
        "next_cursor": Optional[str],
    },
)


_ThreadListOptional = TypedDict(
    "_ThreadListOptional",
    {},
    total=False,
)


class ThreadList(_ThreadListRequired, _ThreadListOptional):
    """ThreadList"""


_ThreadTextBudgetRequired = TypedDict(
    "_ThreadTextBudgetRequired",
    {
        "max_chars": int,
        "used_chars": int,
        "messages_omitted": int,
        "messages_trimmed": int,
        "newest_cut": bool,
    },
)


_ThreadTextBudgetOptional = TypedDict(
    "_ThreadTextBudgetOptional",
    {},
    total=False,
)


class ThreadTextBudget(_ThreadTextBudgetRequired, _ThreadTextBudgetOptional):
    """What the budget did (`max_chars`, docs/guides/receiving.md › Reading a thread under a budget)."""


_ThreadRequired = TypedDict(
    "_ThreadRequired",
    {
        "id": str,
        "subject": str,
        "participants": List[str],
        "message_count": int,
        "last_message_at": str,
        "snippet": str,
        "labels": List[str],
        "messages": List["ThreadMessage"],
        "messages_truncated": bool,
        "text_budget": "ThreadTextBudget",
    },
)


_ThreadOptional = TypedDict(
    "_ThreadOptional",
    {},
    total=False,
)


class Thread(_ThreadRequired, _ThreadOptional):
    """Thread"""


_ThreadMessageTemplate1Required = TypedDict(
    "_ThreadMessageTemplate1Required",
    {
        "name": str,
        "version": int,
    },
)


_ThreadMessageTemplate1Optional = TypedDict(
    "_ThreadMessageTemplate1Optional",
    {},
    total=False,
)


class ThreadMessageTemplate1(_ThreadMessageTemplate1Required, _ThreadMessageTemplate1Optional):
    """ThreadMessageTemplate1"""


_ThreadMessageRequired = TypedDict(
    "_ThreadMessageRequired",
    {
        "id": str,
        "thread_id": str,
        "identity_id": str,
        "direction": Literal["outbound", "inbound"],
        "status": Literal["pending_approval", "queued", "submitted", "delivered", "deferred", "bounced", "complained", "rejected", "failed", "uncertain", "suppressed", "canceled", "undispatched", "received"],
        "status_reason": Optional[str],
        "from": "Mailbox",
        "to": List["Mailbox"],
        "cc": List["Mailbox"],
        "bcc": List["Mailbox"],
        "reply_to": List["Mailbox"],
        "subject": str,
        "text": Optional[str],
        "html": Optional[str],
        "extracted_text": Optional[str],
        "snippet": Optional[str],
        "attachments": List["MessageAttachment"],
        "body_truncated": bool,
        "body_withheld": Optional[Literal["payload_redacted", None]],
        "body_omitted": bool,
        "sent_at": Optional[str],
        "received_at": str,
        "kind": Literal["transactional", "marketing", "auto_reply"],
        "consent_kind": Optional[Literal["transactional", "elective", None]],
        "labels": List[str],
        "flags": List[str],
        "metadata": Dict[str, str],
        "rfc_message_id": str,
        "in_reply_to": Optional[str],
        "send_at": Optional[str],
        "unless_reply": Optional[bool],
        "provider": Optional[Literal["simulator", "loopback", "ses", "cloudflare", "smtp", None]],
        "provider_message_id": Optional[str],
        "template": Optional["ThreadMessageTemplate1"],
        "payload_redacted_at": Optional[str],
        "held": "Held",
        "inbound": Optional["InboundFields"],
        "text_form": Literal["whole", "extracted", "cut"],
    },
)


_ThreadMessageOptional = TypedDict(
    "_ThreadMessageOptional",
    {
        "deliveries": List["Delivery"],
    },
    total=False,
)


class ThreadMessage(_ThreadMessageRequired, _ThreadMessageOptional):
    """ThreadMessage"""


_MessageListItemTemplate1Required = TypedDict(
    "_MessageListItemTemplate1Required",
    {
        "name": str,
        "version": int,
    },
)


_MessageListItemTemplate1Optional = TypedDict(
    "_MessageListItemTemplate1Optional",
    {},
    total=False,
)


class MessageListItemTemplate1(_MessageListItemTemplate1Required, _MessageListItemTemplate1Optional):
    """MessageListItemTemplate1"""


_MessageListItemRequired = TypedDict(
    "_MessageListItemRequired",
    {
        "id": str,
        "thread_id": str,
        "identity_id": str,
        "direction": Literal["outbound", "inbound"],
        "status": Literal["pending_approval", "queued", "submitted", "delivered", "deferred", "bounced", "complained", "rejected", "failed", "uncertain", "suppressed", "canceled", "undispatched", "received"],
        "status_reason": Optional[str],
        "from": "Mailbox",
        "to": List["Mailbox"],
        "cc": List["Mailbox"],
        "bcc": List["Mailbox"],
        "reply_to": List["Mailbox"],
        "subject": str,
        "text": Optional[str],
        "html": Optional[str],
        "extracted_text": Optional[str],
        "snippet": Optional[str],
        "attachments": List["MessageAttachment"],
        "body_truncated": bool,
        "body_withheld": Optional[Literal["payload_redacted", None]],
        "body_omitted": bool,
        "sent_at": Optional[str],
        "received_at": str,
        "kind": Literal["transactional", "marketing", "auto_reply"],
        "consent_kind": Optional[Literal["transactional", "elective", None]],
        "labels": List[str],
        "flags": List[str],
        "metadata": Dict[str, str],
        "rfc_message_id": str,
        "in_reply_to": Optional[str],
        "send_at": Optional[str],
        "unless_reply": Optional[bool],
        "provider": Optional[Literal["simulator", "loopback", "ses", "cloudflare", "smtp", None]],
        "provider_message_id": Optional[str],
        "template": Optional["MessageListItemTemplate1"],
        "payload_redacted_at": Optional[str],
        "held": "Held",
        "inbound": Optional["InboundFields"],
    },
)


_MessageListItemOptional = TypedDict(
    "_MessageListItemOptional",
    {
        "deliveries": List["Delivery"],
        "highlight": "Highlight",
    },
    total=False,
)


class MessageListItem(_MessageListItemRequired, _MessageListItemOptional):
    """A Message of a list; in search results (`q`) with its `highlight`."""


_HighlightMatchesItemRequired = TypedDict(
    "_HighlightMatchesItemRequired",
    {
        "start": int,
        "end": int,
    },
)


_HighlightMatchesItemOptional = TypedDict(
    "_HighlightMatchesItemOptional",
    {},
    total=False,
)


class HighlightMatchesItem(_HighlightMatchesItemRequired, _HighlightMatchesItemOptional):
    """HighlightMatchesItem"""


_HighlightRequired = TypedDict(
    "_HighlightRequired",
    {
        "field": Literal["subject", "from", "to", "cc", "text", "extracted_text", "attachment"],
        "text": str,
        "matches": List["HighlightMatchesItem"],
    },
)


_HighlightOptional = TypedDict(
    "_HighlightOptional",
    {},
    total=False,
)


class Highlight(_HighlightRequired, _HighlightOptional):
    """Where a search result matched: a plain-text excerpt (never HTML, at most 200 UTF-16 code"""


_MessageListRequired = TypedDict(
    "_MessageListRequired",
    {
        "data": List["MessageListItem"],
        "next_cursor": Optional[str],
    },
)


_MessageListOptional = TypedDict(
    "_MessageListOptional",
    {
        "after": str,
    },
    total=False,
)


class MessageList(_MessageListRequired, _MessageListOptional):
    """MessageList"""


_JsonRpcErrorErrorRequired = TypedDict(
    "_JsonRpcErrorErrorRequired",
    {
        "code": int,
        "message": str,
    },
)


_JsonRpcErrorErrorOptional = TypedDict(
    "_JsonRpcErrorErrorOptional",
    {
        "data": Dict[str, Any],
    },
    total=False,
)


class JsonRpcErrorError(_JsonRpcErrorErrorRequired, _JsonRpcErrorErrorOptional):
    """JsonRpcErrorError"""


_JsonRpcErrorRequired = TypedDict(
    "_JsonRpcErrorRequired",
    {
        "jsonrpc": Literal["2.0"],
        "error": "JsonRpcErrorError",
        "id": None,
    },
)


_JsonRpcErrorOptional = TypedDict(
    "_JsonRpcErrorOptional",
    {},
    total=False,
)


class JsonRpcError(_JsonRpcErrorRequired, _JsonRpcErrorOptional):
    """A JSON-RPC 2.0 error response, as the MCP transport answers a protocol fault of"""


_ErrorRequired = TypedDict(
    "_ErrorRequired",
    {
        "error": "ErrorBody",
    },
)


_ErrorOptional = TypedDict(
    "_ErrorOptional",
    {},
    total=False,
)


class Error(_ErrorRequired, _ErrorOptional):
    """Error"""


_ResolveRequestRequired = TypedDict(
    "_ResolveRequestRequired",
    {
        "outcome": Literal["sent", "not_sent"],
    },
)


_ResolveRequestOptional = TypedDict(
    "_ResolveRequestOptional",
    {},
    total=False,
)


class ResolveRequest(_ResolveRequestRequired, _ResolveRequestOptional):
    """ResolveRequest"""


_SuppressionCreateRequestRequired = TypedDict(
    "_SuppressionCreateRequestRequired",
    {
        "address": str,
        "reason": Literal["manual", "unsubscribe"],
    },
)


_SuppressionCreateRequestOptional = TypedDict(
    "_SuppressionCreateRequestOptional",
    {
        "expires_at": str,
        "elective": bool,
    },
    total=False,
)


class SuppressionCreateRequest(_SuppressionCreateRequestRequired, _SuppressionCreateRequestOptional):
    """SuppressionCreateRequest"""


_SuppressionRequired = TypedDict(
    "_SuppressionRequired",
    {
        "address_hint": str,
        "reason": Literal["manual", "unsubscribe", "hard_bounce", "complaint", "provider"],
        "created_at": str,
        "expires_at": Optional[str],
        "source_message_id": Optional[str],
        "elective": bool,
    },
)


_SuppressionOptional = TypedDict(
    "_SuppressionOptional",
    {},
    total=False,
)


class Suppression(_SuppressionRequired, _SuppressionOptional):
    """Suppression"""


_SuppressionListRequired = TypedDict(
    "_SuppressionListRequired",
    {
        "data": List["Suppression"],
        "next_cursor": Optional[str],
    },
)


_SuppressionListOptional = TypedDict(
    "_SuppressionListOptional",
    {},
    total=False,
)


class SuppressionList(_SuppressionListRequired, _SuppressionListOptional):
    """SuppressionList"""


_ListEntryRequired = TypedDict(
    "_ListEntryRequired",
    {
        "direction": Literal["send", "receive"],
        "kind": Literal["block", "allow"],
        "entry": str,
        "created_at": str,
    },
)


_ListEntryOptional = TypedDict(
    "_ListEntryOptional",
    {
        "unauthenticated": bool,
    },
    total=False,
)


class ListEntry(_ListEntryRequired, _ListEntryOptional):
    """ListEntry"""


_HeldListHeldCapsRequired = TypedDict(
    "_HeldListHeldCapsRequired",
    {
        "count": int,
        "bytes": int,
    },
)


_HeldListHeldCapsOptional = TypedDict(
    "_HeldListHeldCapsOptional",
    {},
    total=False,
)


class HeldListHeldCaps(_HeldListHeldCapsRequired, _HeldListHeldCapsOptional):
    """HeldListHeldCaps"""


_HeldListHeldRequired = TypedDict(
    "_HeldListHeldRequired",
    {
        "count": int,
        "bytes": int,
        "dropped": int,
        "caps": "HeldListHeldCaps",
    },
)


_HeldListHeldOptional = TypedDict(
    "_HeldListHeldOptional",
    {},
    total=False,
)


class HeldListHeld(_HeldListHeldRequired, _HeldListHeldOptional):
    """What the identity holds against its caps: past either cap, a message that would be held"""


_HeldListRequired = TypedDict(
    "_HeldListRequired",
    {
        "data": List["Message"],
        "next_cursor": Optional[str],
        "held": "HeldListHeld",
    },
)


_HeldListOptional = TypedDict(
    "_HeldListOptional",
    {},
    total=False,
)


class HeldList(_HeldListRequired, _HeldListOptional):
    """HeldList"""


_ListEntryListRequired = TypedDict(
    "_ListEntryListRequired",
    {
        "data": List["ListEntry"],
        "next_cursor": Optional[str],
    },
)


_ListEntryListOptional = TypedDict(
    "_ListEntryListOptional",
    {},
    total=False,
)


class ListEntryList(_ListEntryListRequired, _ListEntryListOptional):
    """ListEntryList"""


_KeyRequired = TypedDict(
    "_KeyRequired",
    {
        "id": str,
        "name": str,
        "level": Literal["platform", "tenant", "identity"],
        "mode": Literal["live", "test"],
        "tenant_id": Optional[str],
        "identity_id": Optional[str],
        "permissions": List[str],
        "sends_need_approval": bool,
        "status": Literal["active", "revoked", "expired"],
        "expires_at": Optional[str],
        "last_used_at": Optional[str],
        "revoked_at": Optional[str],
        "created_by": str,
        "created_at": str,
    },
)


_KeyOptional = TypedDict(
    "_KeyOptional",
    {},
    total=False,
)


class Key(_KeyRequired, _KeyOptional):
    """Key"""


_KeyCreatedRequired = TypedDict(
    "_KeyCreatedRequired",
    {
        "id": str,
        "name": str,
        "level": Literal["platform", "tenant", "identity"],
        "mode": Literal["live", "test"],
        "tenant_id": Optional[str],
        "identity_id": Optional[str],
        "permissions": List[str],
        "sends_need_approval": bool,
        "status": Literal["active", "revoked", "expired"],
        "expires_at": Optional[str],
        "last_used_at": Optional[str],
        "revoked_at": Optional[str],
        "created_by": str,
        "created_at": str,
    },
)


_KeyCreatedOptional = TypedDict(
    "_KeyCreatedOptional",
    {
        "secret": str,
        "secret_replayed": bool,
    },
    total=False,
)


class KeyCreated(_KeyCreatedRequired, _KeyCreatedOptional):
    """KeyCreated"""


_KeyRotatedRequired = TypedDict(
    "_KeyRotatedRequired",
    {
        "id": str,
        "name": str,
        "level": Literal["platform", "tenant", "identity"],
        "mode": Literal["live", "test"],
        "tenant_id": Optional[str],
        "identity_id": Optional[str],
        "permissions": List[str],
        "sends_need_approval": bool,
        "status": Literal["active", "revoked", "expired"],
        "expires_at": Optional[str],
        "last_used_at": Optional[str],
        "revoked_at": Optional[str],
        "created_by": str,
        "created_at": str,
    },
)


_KeyRotatedOptional = TypedDict(
    "_KeyRotatedOptional",
    {
        "secret": str,
        "previous_secrets_expire_at": str,
        "secret_replayed": bool,
    },
    total=False,
)


class KeyRotated(_KeyRotatedRequired, _KeyRotatedOptional):
    """KeyRotated"""


_KeyListRequired = TypedDict(
    "_KeyListRequired",
    {
        "data": List["Key"],
        "next_cursor": Optional[str],
    },
)


_KeyListOptional = TypedDict(
    "_KeyListOptional",
    {},
    total=False,
)


class KeyList(_KeyListRequired, _KeyListOptional):
    """KeyList"""


_MeRequired = TypedDict(
    "_MeRequired",
    {
        "key_id": str,
        "name": Optional[str],
        "level": Literal["platform", "tenant", "identity"],
        "mode": Optional[Literal["live", "test", None]],
        "tenant_id": Optional[str],
        "identity_id": Optional[str],
        "permissions": List[str],
        "sends_need_approval": bool,
        "expires_at": Optional[str],
    },
)


_MeOptional = TypedDict(
    "_MeOptional",
    {},
    total=False,
)


class Me(_MeRequired, _MeOptional):
    """Me"""


_TenantRequired = TypedDict(
    "_TenantRequired",
    {
        "id": str,
        "slug": Optional[str],
        "name": str,
        "mode": Literal["test", "live"],
        "status": Literal["active", "suspended"],
        "timezone": str,
        "policy": "EffectivePolicy",
        "policy_version": int,
        "suspended_at": Optional[str],
        "created_at": Optional[str],
        "updated_at": Optional[str],
    },
)


_TenantOptional = TypedDict(
    "_TenantOptional",
    {},
    total=False,
)


class Tenant(_TenantRequired, _TenantOptional):
    """Tenant"""


_TenantListRequired = TypedDict(
    "_TenantListRequired",
    {
        "data": List["Tenant"],
        "next_cursor": Optional[str],
    },
)


_TenantListOptional = TypedDict(
    "_TenantListOptional",
    {},
    total=False,
)


class TenantList(_TenantListRequired, _TenantListOptional):
    """TenantList"""


_EffectivePolicyAbuseRequired = TypedDict(
    "_EffectivePolicyAbuseRequired",
    {},
)


_EffectivePolicyAbuseOptional = TypedDict(
    "_EffectivePolicyAbuseOptional",
    {
        "complaint_rate_pause": float,
        "bounce_rate_pause": float,
    },
    total=False,
)


class EffectivePolicyAbuse(_EffectivePolicyAbuseRequired, _EffectivePolicyAbuseOptional):
    """EffectivePolicyAbuse"""


_EffectivePolicyAutoReplyRequired = TypedDict(
    "_EffectivePolicyAutoReplyRequired",
    {},
)


_EffectivePolicyAutoReplyOptional = TypedDict(
    "_EffectivePolicyAutoReplyOptional",
    {
        "enabled": bool,
        "max_automatic_exchanges": int,
    },
    total=False,
)


class EffectivePolicyAutoReply(_EffectivePolicyAutoReplyRequired, _EffectivePolicyAutoReplyOptional):
    """EffectivePolicyAutoReply"""


_EffectivePolicyAiDisclosureRequired = TypedDict(
    "_EffectivePolicyAiDisclosureRequired",
    {},
)


_EffectivePolicyAiDisclosureOptional = TypedDict(
    "_EffectivePolicyAiDisclosureOptional",
    {
        "mode": str,
        "text": str,
    },
    total=False,
)


class EffectivePolicyAiDisclosure(_EffectivePolicyAiDisclosureRequired, _EffectivePolicyAiDisclosureOptional):
    """EffectivePolicyAiDisclosure"""


_EffectivePolicyRequired = TypedDict(
    "_EffectivePolicyRequired",
    {},
)


_EffectivePolicyOptional = TypedDict(
    "_EffectivePolicyOptional",
    {
        "max_recipients": int,
        "daily_send_cap": int,
        "identity_daily_send_cap": int,
        "send_allowlist_only": bool,
        "large_attachments": Literal["reject", "link"],
        "unconfigured_transport": Literal["refuse", "hold"],
        "abuse": "EffectivePolicyAbuse",
        "auto_reply": "EffectivePolicyAutoReply",
        "ai_disclosure": "EffectivePolicyAiDisclosure",
    },
    total=False,
)


class EffectivePolicy(_EffectivePolicyRequired, _EffectivePolicyOptional):
    """The effective policy: every field, the defaults filled in."""


_TenantPolicyViewRequired = TypedDict(
    "_TenantPolicyViewRequired",
    {
        "tenant_id": str,
        "policy_version": int,
        "policy": "EffectivePolicy",
    },
)


_TenantPolicyViewOptional = TypedDict(
    "_TenantPolicyViewOptional",
    {},
    total=False,
)


class TenantPolicyView(_TenantPolicyViewRequired, _TenantPolicyViewOptional):
    """TenantPolicyView"""


_IdentityListRequired = TypedDict(
    "_IdentityListRequired",
    {
        "data": List["Identity"],
        "next_cursor": Optional[str],
    },
)


_IdentityListOptional = TypedDict(
    "_IdentityListOptional",
    {},
    total=False,
)


class IdentityList(_IdentityListRequired, _IdentityListOptional):
    """IdentityList"""


_AuditEventRequired = TypedDict(
    "_AuditEventRequired",
    {
        "id": str,
        "tenant_id": Optional[str],
        "actor_key_id": Optional[str],
        "action": str,
        "target_type": Literal["api_key", "tenant", "identity", "message"],
        "target_id": Optional[str],
        "details": Dict[str, Any],
        "request_id": Optional[str],
        "created_at": Optional[str],
    },
)


_AuditEventOptional = TypedDict(
    "_AuditEventOptional",
    {},
    total=False,
)


class AuditEvent(_AuditEventRequired, _AuditEventOptional):
    """AuditEvent"""


_AuditEventListRequired = TypedDict(
    "_AuditEventListRequired",
    {
        "data": List["AuditEvent"],
        "next_cursor": Optional[str],
    },
)


_AuditEventListOptional = TypedDict(
    "_AuditEventListOptional",
    {},
    total=False,
)


class AuditEventList(_AuditEventListRequired, _AuditEventListOptional):
    """AuditEventList"""


_HealthChecksRequired = TypedDict(
    "_HealthChecksRequired",
    {
        "table": Literal["ok", "unreachable"],
        "state_machines": Literal["ok", "unreachable", "not_configured"],
    },
)


_HealthChecksOptional = TypedDict(
    "_HealthChecksOptional",
    {},
    total=False,
)


class HealthChecks(_HealthChecksRequired, _HealthChecksOptional):
    """HealthChecks"""


_HealthRequired = TypedDict(
    "_HealthRequired",
    {
        "status": Literal["ok", "degraded"],
        "version": str,
        "checks": "HealthChecks",
    },
)


_HealthOptional = TypedDict(
    "_HealthOptional",
    {},
    total=False,
)


class Health(_HealthRequired, _HealthOptional):
    """Health"""


_OpenApiDocumentRequired = TypedDict(
    "_OpenApiDocumentRequired",
    {},
)


_OpenApiDocumentOptional = TypedDict(
    "_OpenApiDocumentOptional",
    {},
    total=False,
)


class OpenApiDocument(_OpenApiDocumentRequired, _OpenApiDocumentOptional):
    """This document."""


_KeyCreateRequestRequired = TypedDict(
    "_KeyCreateRequestRequired",
    {
        "name": str,
        "level": Literal["platform", "tenant", "identity"],
        "permissions": List[Literal["tenants:manage", "keys:manage", "policy:write", "audit:read", "suppressions:manage", "identities:read", "identities:write", "messages:send", "messages:read", "messages:write", "messages:approve", "messages:hold", "webhooks:read", "webhooks:manage", "events:read", "domains:read", "domains:write", "templates:read", "templates:write"]],
    },
)


_KeyCreateRequestOptional = TypedDict(
    "_KeyCreateRequestOptional",
    {
        "tenant_id": str,
        "identity_id": str,
        "expires_at": str,
        "sends_need_approval": bool,
    },
    total=False,
)


class KeyCreateRequest(_KeyCreateRequestRequired, _KeyCreateRequestOptional):
    """KeyCreateRequest"""


_KeyRotateRequestRequired = TypedDict(
    "_KeyRotateRequestRequired",
    {},
)


_KeyRotateRequestOptional = TypedDict(
    "_KeyRotateRequestOptional",
    {
        "overlap_hours": int,
    },
    total=False,
)


class KeyRotateRequest(_KeyRotateRequestRequired, _KeyRotateRequestOptional):
    """KeyRotateRequest"""


_TenantCreateRequestPolicyAbuse0Required = TypedDict(
    "_TenantCreateRequestPolicyAbuse0Required",
    {},
)


_TenantCreateRequestPolicyAbuse0Optional = TypedDict(
    "_TenantCreateRequestPolicyAbuse0Optional",
    {
        "complaint_rate_pause": Optional[float],
        "bounce_rate_pause": Optional[float],
    },
    total=False,
)


class TenantCreateRequestPolicyAbuse0(_TenantCreateRequestPolicyAbuse0Required, _TenantCreateRequestPolicyAbuse0Optional):
    """TenantCreateRequestPolicyAbuse0"""


_TenantCreateRequestPolicyAutoReply0Required = TypedDict(
    "_TenantCreateRequestPolicyAutoReply0Required",
    {},
)


_TenantCreateRequestPolicyAutoReply0Optional = TypedDict(
    "_TenantCreateRequestPolicyAutoReply0Optional",
    {
        "enabled": Optional[bool],
        "max_automatic_exchanges": Optional[int],
    },
    total=False,
)


class TenantCreateRequestPolicyAutoReply0(_TenantCreateRequestPolicyAutoReply0Required, _TenantCreateRequestPolicyAutoReply0Optional):
    """TenantCreateRequestPolicyAutoReply0"""


_TenantCreateRequestPolicyRequired = TypedDict(
    "_TenantCreateRequestPolicyRequired",
    {},
)


_TenantCreateRequestPolicyOptional = TypedDict(
    "_TenantCreateRequestPolicyOptional",
    {
        "max_recipients": Optional[int],
        "daily_send_cap": Optional[int],
        "identity_daily_send_cap": Optional[int],
        "send_allowlist_only": Optional[bool],
        "large_attachments": Optional[Literal["reject", "link"]],
        "unconfigured_transport": Optional[Literal["refuse", "hold"]],
        "abuse": Optional["TenantCreateRequestPolicyAbuse0"],
        "auto_reply": Optional["TenantCreateRequestPolicyAutoReply0"],
    },
    total=False,
)


class TenantCreateRequestPolicy(_TenantCreateRequestPolicyRequired, _TenantCreateRequestPolicyOptional):
    """TenantCreateRequestPolicy"""


_TenantCreateRequestRequired = TypedDict(
    "_TenantCreateRequestRequired",
    {
        "slug": str,
        "name": str,
        "mode": Literal["test", "live"],
    },
)


_TenantCreateRequestOptional = TypedDict(
    "_TenantCreateRequestOptional",
    {
        "timezone": str,
        "policy": "TenantCreateRequestPolicy",
    },
    total=False,
)


class TenantCreateRequest(_TenantCreateRequestRequired, _TenantCreateRequestOptional):
    """TenantCreateRequest"""


_TenantUpdateRequestRequired = TypedDict(
    "_TenantUpdateRequestRequired",
    {},
)


_TenantUpdateRequestOptional = TypedDict(
    "_TenantUpdateRequestOptional",
    {
        "name": str,
        "timezone": str,
        "status": Literal["active", "suspended"],
    },
    total=False,
)


class TenantUpdateRequest(_TenantUpdateRequestRequired, _TenantUpdateRequestOptional):
    """TenantUpdateRequest"""


_PolicyPatchRequestAbuse0Required = TypedDict(
    "_PolicyPatchRequestAbuse0Required",
    {},
)


_PolicyPatchRequestAbuse0Optional = TypedDict(
    "_PolicyPatchRequestAbuse0Optional",
    {
        "complaint_rate_pause": Optional[float],
        "bounce_rate_pause": Optional[float],
    },
    total=False,
)


class PolicyPatchRequestAbuse0(_PolicyPatchRequestAbuse0Required, _PolicyPatchRequestAbuse0Optional):
    """PolicyPatchRequestAbuse0"""


_PolicyPatchRequestAutoReply0Required = TypedDict(
    "_PolicyPatchRequestAutoReply0Required",
    {},
)


_PolicyPatchRequestAutoReply0Optional = TypedDict(
    "_PolicyPatchRequestAutoReply0Optional",
    {
        "enabled": Optional[bool],
        "max_automatic_exchanges": Optional[int],
    },
    total=False,
)


class PolicyPatchRequestAutoReply0(_PolicyPatchRequestAutoReply0Required, _PolicyPatchRequestAutoReply0Optional):
    """PolicyPatchRequestAutoReply0"""


_PolicyPatchRequestRequired = TypedDict(
    "_PolicyPatchRequestRequired",
    {},
)


_PolicyPatchRequestOptional = TypedDict(
    "_PolicyPatchRequestOptional",
    {
        "max_recipients": Optional[int],
        "daily_send_cap": Optional[int],
        "identity_daily_send_cap": Optional[int],
        "send_allowlist_only": Optional[bool],
        "large_attachments": Optional[Literal["reject", "link"]],
        "unconfigured_transport": Optional[Literal["refuse", "hold"]],
        "abuse": Optional["PolicyPatchRequestAbuse0"],
        "auto_reply": Optional["PolicyPatchRequestAutoReply0"],
        "policy_version": int,
    },
    total=False,
)


class PolicyPatchRequest(_PolicyPatchRequestRequired, _PolicyPatchRequestOptional):
    """PolicyPatchRequest"""


_IdentityCreateRequestOwnerRequired = TypedDict(
    "_IdentityCreateRequestOwnerRequired",
    {
        "name": str,
        "email": str,
    },
)


_IdentityCreateRequestOwnerOptional = TypedDict(
    "_IdentityCreateRequestOwnerOptional",
    {},
    total=False,
)


class IdentityCreateRequestOwner(_IdentityCreateRequestOwnerRequired, _IdentityCreateRequestOwnerOptional):
    """IdentityCreateRequestOwner"""


_IdentityCreateRequestSendPolicyRequired = TypedDict(
    "_IdentityCreateRequestSendPolicyRequired",
    {},
)


_IdentityCreateRequestSendPolicyOptional = TypedDict(
    "_IdentityCreateRequestSendPolicyOptional",
    {
        "require_known_recipient": bool,
        "daily_cap": int,
        "require_approval": Union[bool, Literal["first_contact"]],
    },
    total=False,
)


class IdentityCreateRequestSendPolicy(_IdentityCreateRequestSendPolicyRequired, _IdentityCreateRequestSendPolicyOptional):
    """IdentityCreateRequestSendPolicy"""


_IdentityCreateRequestReceivePolicyStrangerRateRequired = TypedDict(
    "_IdentityCreateRequestReceivePolicyStrangerRateRequired",
    {},
)


_IdentityCreateRequestReceivePolicyStrangerRateOptional = TypedDict(
    "_IdentityCreateRequestReceivePolicyStrangerRateOptional",
    {
        "per_sender": int,
        "total": int,
    },
    total=False,
)


class IdentityCreateRequestReceivePolicyStrangerRate(_IdentityCreateRequestReceivePolicyStrangerRateRequired, _IdentityCreateRequestReceivePolicyStrangerRateOptional):
    """Mail from senders neither known nor allowed shown per hour (default 10 per sender, 50 in all); past it, held with reason `rate`."""


_IdentityCreateRequestReceivePolicyRequired = TypedDict(
    "_IdentityCreateRequestReceivePolicyRequired",
    {},
)


_IdentityCreateRequestReceivePolicyOptional = TypedDict(
    "_IdentityCreateRequestReceivePolicyOptional",
    {
        "hold": Literal["none", "unauthenticated", "unknown"],
        "stranger_rate": "IdentityCreateRequestReceivePolicyStrangerRate",
    },
    total=False,
)


class IdentityCreateRequestReceivePolicy(_IdentityCreateRequestReceivePolicyRequired, _IdentityCreateRequestReceivePolicyOptional):
    """IdentityCreateRequestReceivePolicy"""


_IdentityCreateRequestRequired = TypedDict(
    "_IdentityCreateRequestRequired",
    {
        "username": str,
    },
)


_IdentityCreateRequestOptional = TypedDict(
    "_IdentityCreateRequestOptional",
    {
        "display_name": str,
        "owner": "IdentityCreateRequestOwner",
        "domain": str,
        "send_policy": "IdentityCreateRequestSendPolicy",
        "receive_policy": "IdentityCreateRequestReceivePolicy",
        "metadata": Dict[str, str],
        "client_id": str,
    },
    total=False,
)


class IdentityCreateRequest(_IdentityCreateRequestRequired, _IdentityCreateRequestOptional):
    """IdentityCreateRequest"""


_DomainCreateRequestSesRequired = TypedDict(
    "_DomainCreateRequestSesRequired",
    {},
)


_DomainCreateRequestSesOptional = TypedDict(
    "_DomainCreateRequestSesOptional",
    {
        "region": str,
        "configuration_set": str,
    },
    total=False,
)


class DomainCreateRequestSes(_DomainCreateRequestSesRequired, _DomainCreateRequestSesOptional):
    """DomainCreateRequestSes"""


_DomainCreateRequestCloudflareRequired = TypedDict(
    "_DomainCreateRequestCloudflareRequired",
    {},
)


_DomainCreateRequestCloudflareOptional = TypedDict(
    "_DomainCreateRequestCloudflareOptional",
    {
        "account_id": str,
    },
    total=False,
)


class DomainCreateRequestCloudflare(_DomainCreateRequestCloudflareRequired, _DomainCreateRequestCloudflareOptional):
    """DomainCreateRequestCloudflare"""


_DomainCreateRequestRequired = TypedDict(
    "_DomainCreateRequestRequired",
    {
        "name": str,
        "transport": Literal["ses", "smtp", "cloudflare"],
    },
)


_DomainCreateRequestOptional = TypedDict(
    "_DomainCreateRequestOptional",
    {
        "reply_token": Literal["subaddress", "none"],
        "mail_from": str,
        "ses": "DomainCreateRequestSes",
        "smtp": "SmtpRelaySettings",
        "cloudflare": "DomainCreateRequestCloudflare",
    },
    total=False,
)


class DomainCreateRequest(_DomainCreateRequestRequired, _DomainCreateRequestOptional):
    """DomainCreateRequest"""


_SmtpRelaySettingsRequired = TypedDict(
    "_SmtpRelaySettingsRequired",
    {
        "host": str,
        "port": int,
    },
)


_SmtpRelaySettingsOptional = TypedDict(
    "_SmtpRelaySettingsOptional",
    {
        "tls": Literal["implicit", "starttls"],
        "username": str,
        "auth": Literal["password", "xoauth2"],
        "password": str,
        "access_token": str,
    },
    total=False,
)


class SmtpRelaySettings(_SmtpRelaySettingsRequired, _SmtpRelaySettingsOptional):
    """The tenant's SMTP relay. `password` and `access_token` are write-only: stored in the"""


_DomainUpdateRequestSesRequired = TypedDict(
    "_DomainUpdateRequestSesRequired",
    {},
)


_DomainUpdateRequestSesOptional = TypedDict(
    "_DomainUpdateRequestSesOptional",
    {
        "configuration_set": Optional[str],
    },
    total=False,
)


class DomainUpdateRequestSes(_DomainUpdateRequestSesRequired, _DomainUpdateRequestSesOptional):
    """DomainUpdateRequestSes"""


_DomainUpdateRequestCloudflareRequired = TypedDict(
    "_DomainUpdateRequestCloudflareRequired",
    {},
)


_DomainUpdateRequestCloudflareOptional = TypedDict(
    "_DomainUpdateRequestCloudflareOptional",
    {
        "account_id": Optional[str],
    },
    total=False,
)


class DomainUpdateRequestCloudflare(_DomainUpdateRequestCloudflareRequired, _DomainUpdateRequestCloudflareOptional):
    """DomainUpdateRequestCloudflare"""


_DomainUpdateRequestRequired = TypedDict(
    "_DomainUpdateRequestRequired",
    {},
)


_DomainUpdateRequestOptional = TypedDict(
    "_DomainUpdateRequestOptional",
    {
        "reply_token": Literal["subaddress", "none"],
        "ses": "DomainUpdateRequestSes",
        "smtp": "SmtpRelaySettings",
        "cloudflare": "DomainUpdateRequestCloudflare",
    },
    total=False,
)


class DomainUpdateRequest(_DomainUpdateRequestRequired, _DomainUpdateRequestOptional):
    """DomainUpdateRequest"""


_DnsRecordRequired = TypedDict(
    "_DnsRecordRequired",
    {
        "type": Literal["CNAME", "MX", "TXT"],
        "name": str,
        "value": str,
        "purpose": Literal["dkim", "mail_from_mx", "mail_from_spf", "dmarc", "inbound_mx"],
        "required": bool,
    },
)


_DnsRecordOptional = TypedDict(
    "_DnsRecordOptional",
    {},
    total=False,
)


class DnsRecord(_DnsRecordRequired, _DnsRecordOptional):
    """DnsRecord"""


_TemplateCreateRequestRequired = TypedDict(
    "_TemplateCreateRequestRequired",
    {
        "name": str,
        "subject": str,
        "variables_schema": Dict[str, Dict[str, Any]],
        "category": Literal["transactional", "marketing"],
        "kind": Literal["transactional", "elective"],
    },
)


_TemplateCreateRequestOptional = TypedDict(
    "_TemplateCreateRequestOptional",
    {
        "text": str,
        "html": str,
        "description": str,
    },
    total=False,
)


class TemplateCreateRequest(_TemplateCreateRequestRequired, _TemplateCreateRequestOptional):
    """TemplateCreateRequest"""


_TemplateUpdateRequestRequired = TypedDict(
    "_TemplateUpdateRequestRequired",
    {
        "subject": str,
        "variables_schema": Dict[str, Dict[str, Any]],
        "category": Literal["transactional", "marketing"],
        "kind": Literal["transactional", "elective"],
    },
)


_TemplateUpdateRequestOptional = TypedDict(
    "_TemplateUpdateRequestOptional",
    {
        "text": str,
        "html": str,
        "description": str,
    },
    total=False,
)


class TemplateUpdateRequest(_TemplateUpdateRequestRequired, _TemplateUpdateRequestOptional):
    """TemplateUpdateRequest"""


_TemplateSummaryRequired = TypedDict(
    "_TemplateSummaryRequired",
    {
        "name": str,
        "version": int,
        "subject": str,
        "category": Literal["transactional", "marketing"],
        "kind": Literal["transactional", "elective"],
        "description": Optional[str],
        "created_at": str,
        "updated_at": str,
    },
)


_TemplateSummaryOptional = TypedDict(
    "_TemplateSummaryOptional",
    {},
    total=False,
)


class TemplateSummary(_TemplateSummaryRequired, _TemplateSummaryOptional):
    """TemplateSummary"""


_TemplateRequired = TypedDict(
    "_TemplateRequired",
    {
        "name": str,
        "version": int,
        "subject": str,
        "category": Literal["transactional", "marketing"],
        "kind": Literal["transactional", "elective"],
        "description": Optional[str],
        "created_at": str,
        "updated_at": str,
        "text": Optional[str],
        "html": Optional[str],
        "variables_schema": Dict[str, Any],
    },
)


_TemplateOptional = TypedDict(
    "_TemplateOptional",
    {},
    total=False,
)


class Template(_TemplateRequired, _TemplateOptional):
    """Template"""


_TemplateListRequired = TypedDict(
    "_TemplateListRequired",
    {
        "data": List["TemplateSummary"],
        "next_cursor": None,
    },
)


_TemplateListOptional = TypedDict(
    "_TemplateListOptional",
    {},
    total=False,
)


class TemplateList(_TemplateListRequired, _TemplateListOptional):
    """TemplateList"""


_DomainSesRequired = TypedDict(
    "_DomainSesRequired",
    {},
)


_DomainSesOptional = TypedDict(
    "_DomainSesOptional",
    {
        "region": Optional[str],
        "configuration_set": Optional[str],
    },
    total=False,
)


class DomainSes(_DomainSesRequired, _DomainSesOptional):
    """DomainSes"""


_DomainSmtpRequired = TypedDict(
    "_DomainSmtpRequired",
    {
        "host": str,
        "port": int,
        "tls": Optional[Literal["implicit", "starttls", None]],
        "username": Optional[str],
        "auth": Literal["password", "xoauth2"],
        "credentials_stored": bool,
    },
)


_DomainSmtpOptional = TypedDict(
    "_DomainSmtpOptional",
    {},
    total=False,
)


class DomainSmtp(_DomainSmtpRequired, _DomainSmtpOptional):
    """The relay settings (transport `smtp`); the secret itself is never answered."""


_DomainCloudflareRequired = TypedDict(
    "_DomainCloudflareRequired",
    {
        "account_id": Optional[str],
    },
)


_DomainCloudflareOptional = TypedDict(
    "_DomainCloudflareOptional",
    {},
    total=False,
)


class DomainCloudflare(_DomainCloudflareRequired, _DomainCloudflareOptional):
    """The Cloudflare settings (transport `cloudflare`)."""


_DomainRequired = TypedDict(
    "_DomainRequired",
    {
        "id": Optional[str],
        "name": str,
        "transport": Literal["ses", "smtp", "cloudflare", "test"],
        "reply_token": Literal["subaddress", "none"],
        "state": Literal["pending", "verifying", "healthy", "degraded", "failing", "suspended", "removing", "removed"],
        "state_reason": Optional[str],
        "checked_at": Optional[str],
        "mail_from": Optional[str],
        "ses": Optional["DomainSes"],
        "smtp": Optional["DomainSmtp"],
        "cloudflare": Optional["DomainCloudflare"],
        "dns_records": List["DnsRecord"],
        "inbound_mx_published": Optional[bool],
        "created_at": Optional[str],
        "updated_at": Optional[str],
    },
)


_DomainOptional = TypedDict(
    "_DomainOptional",
    {},
    total=False,
)


class Domain(_DomainRequired, _DomainOptional):
    """Domain"""


_DomainListRequired = TypedDict(
    "_DomainListRequired",
    {
        "data": List["Domain"],
        "next_cursor": None,
    },
)


_DomainListOptional = TypedDict(
    "_DomainListOptional",
    {},
    total=False,
)


class DomainList(_DomainListRequired, _DomainListOptional):
    """DomainList"""

