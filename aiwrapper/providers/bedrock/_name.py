NAME = "bedrock"
