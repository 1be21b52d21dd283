/**
 * A rule's message as a sentence on its own line: its first letter capitalised. capz-common words its messages to
 * follow a name or a colon ("replicas: the node count must be …"); a list item starts a sentence.
 */
export function asSentence(message: string): string {
  return message.charAt(0).toUpperCase() + message.slice(1);
}
