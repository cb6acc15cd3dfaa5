"""A local Slack: a stateful Web API stand-in plus a driver that plays Slack towards the bot.

Used by the end-to-end tests, the benchmark and (later) the try-it-locally sandbox.
"""

from bot.standin.driver import Delivery, SlackDriver, signature
from bot.standin.server import Call, FakeSlack
from bot.standin.workspace import Channel, Message, User, Workspace

__all__ = [
    "Call",
    "Channel",
    "Delivery",
    "FakeSlack",
    "Message",
    "SlackDriver",
    "User",
    "Workspace",
    "signature",
]
