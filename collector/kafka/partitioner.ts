import { Partitioners, type ICustomPartitioner, type Message } from 'kafkajs';

/**
 * kafkajs' default partitioner (the Java client's: an explicit partition, else murmur2 of the
 * key, else round-robin), with each message's partition chosen once. kafkajs partitions a
 * send's messages again on every retry of it, so a keyless message whose first attempt was
 * written but not acknowledged (a timeout, or another partition of the same request failing)
 * went to the next partition on the retry: a second copy, which idempotence cannot catch, since
 * its sequence numbers are per partition. Pinned, a retry goes where the first attempt went and
 * the broker drops the copy, as the Java producer does (it assigns a record's partition once,
 * before the record is batched and retried).
 */
export const RetryStablePartitioner: ICustomPartitioner = () => {
  const choose = Partitioners.DefaultPartitioner();
  const chosen = new WeakMap<Message, number>();
  return (args) => {
    const pinned = chosen.get(args.message);
    if (pinned !== undefined) return pinned;
    const partition = choose(args);
    chosen.set(args.message, partition);
    return partition;
  };
};
