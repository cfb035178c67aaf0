"""compact"""
