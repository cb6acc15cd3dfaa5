"""Operational skills: `skills/<name>/SKILL.md` files and the index that matches them to requests."""

from skills.loader import Skill, SkillIndex, SkillSummary

__all__ = ["Skill", "SkillIndex", "SkillSummary"]
