
'a TensorFlow tool output, not a capture